import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './error-response';

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
