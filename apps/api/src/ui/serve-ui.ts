import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyStatic from '@fastify/static';
import { findUpwards } from '../find-upwards';

/** The built web UI (`npm run build` writes dist/ui), found upwards from the sources or from dist/. */
export const UI_DIR = process.env.IPAM_UI_DIR ?? findUpwards(__dirname, 'dist/ui', 'index.html');

/**
 * Serves the web UI at /ui/ straight from Fastify: the page and its assets are public (they hold
 * no data; every data call it makes goes through /v1 with the token the user gives it; access.ts
 * declares routes under /ui public), and being no Nest route they stay out of the OpenAPI
 * document. Returns false when no build is there.
 */
export async function serveUi(app: NestFastifyApplication, root: string | null = UI_DIR): Promise<boolean> {
  if (!root) return false;
  await app.register(fastifyStatic, {
    root,
    prefix: '/ui/',
    index: ['index.html'],
    cacheControl: false,
    setHeaders(reply, path) {
      // asset names carry a content hash; the page itself must be fetched again to see a new build
      void reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app
    .getHttpAdapter()
    .getInstance()
    .get('/ui', (_req, reply) => reply.redirect('/ui/'));
  return true;
}
