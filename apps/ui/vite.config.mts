import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The web UI: served by the API at /ui from dist/ui; it shares the address math of libs/ip with the server. */
export default defineConfig({
  root: here('.'),
  base: '/ui/',
  resolve: { alias: { '@ipledger/ip': here('../../libs/ip/src/index.ts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: here('../../dist/ui'), emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
});
