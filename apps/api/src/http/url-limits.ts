import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './error-response';
import { LIMITS } from './limits';

/**
 * PostgreSQL text cannot hold NUL, and no name, filter or token of the API contains one: refuse
 * it in the path or the query string before any route sees it, rather than letting it reach a query.
 */
export async function refuseNulInUrl(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (/%00/.test(req.url) || req.url.includes('\u0000')) {
    await reply
      .code(400)
      .send(errorBody(400, 'INVALID_ARGUMENT', 'the URL holds a NUL character (%00), which no name, filter or token may contain'));
  }
}

/** A path parameter (a name, a handle, an address) longer than any the API knows is refused, not looked up. */
export async function refuseLongPathParams(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  for (const [name, value] of Object.entries((req.params ?? {}) as Record<string, string>)) {
    if (typeof value === 'string' && value.length > LIMITS.pathParam) {
      await reply
        .code(400)
        .send(errorBody(400, 'INVALID_ARGUMENT', `path parameter ${name} is ${value.length} characters long; at most ${LIMITS.pathParam}`));
      return;
    }
  }
}

/**
 * What Fastify's router refuses before any hook runs (its `frameworkErrors`), in the API's error
 * shape: above all a path that is not valid percent-encoded UTF-8 (half of a surrogate pair, a cut
 * sequence).
 */
export function refuseUnroutableUrl(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const problem = error.code === 'FST_ERR_BAD_URL' ? 'the path is not valid percent-encoded UTF-8' : error.message;
  void reply.code(400).send(errorBody(400, 'INVALID_ARGUMENT', `the URL is refused: ${problem}`));
}
