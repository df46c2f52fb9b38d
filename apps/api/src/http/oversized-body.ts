import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance } from 'fastify';
import { MAX_BODY_BYTES } from './error-mapping';

/**
 * What the API reads of a body over the limit: up to `bytes` (and `ms`) before it answers 413, and
 * for `lingerMs` after an answer that closes the connection.
 */
export const OVERSIZED_BODY_DRAIN = { bytes: 16 * MAX_BODY_BYTES, ms: 10_000, lingerMs: 2_000 } as const;

/** The drain ends this long before the request's own deadline, so the deadline's 503 never overtakes the 413. */
const DEADLINE_MARGIN_MS = 100;

/**
 * A connection closed under a client still sending its body is reset, and a client that writes
 * its whole body before it reads (Node's fetch, Go's net/http) then reports a network error
 * (EPIPE, ECONNRESET) instead of the answer. So a body over the limit is read and dropped to its
 * end before the 413 goes out, and the connection stays open for the client's next request. Past
 * the bounds (OVERSIZED_BODY_DRAIN), before the request's deadline, or with a declared length
 * beyond them, the 413 goes out with `Connection: close`, and the close lingers: the answer, then
 * our side of the connection shut, while what the client still sends is read and dropped until it
 * stops or `lingerMs` passed. An endless or slow upload holds a socket no longer than the bounds.
 */
export function answerOversizedBodiesOnceSent(fastify: FastifyInstance, requestTimeoutMs: number): void {
  fastify.addHook('onError', async (request, reply, error: FastifyError) => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return;
    const declared = Number(request.headers['content-length']);
    const beforeDeadline = requestTimeoutMs > 0 ? requestTimeoutMs - reply.elapsedTime - DEADLINE_MARGIN_MS : Infinity;
    const drained =
      !(declared > MAX_BODY_BYTES + OVERSIZED_BODY_DRAIN.bytes) &&
      (await readToEnd(request.raw, Math.min(OVERSIZED_BODY_DRAIN.ms, beforeDeadline)));
    // Fastify asks for Connection: close on every body it could not read; read whole, it need not
    if (drained) reply.removeHeader('connection');
    // Node's server closes a Connection: close answer's socket through destroySoon, once the answer is written
    else request.raw.socket.destroySoon = () => closeLingering(request.raw.socket);
  });
}

/** Reads and drops the rest of a request body: true once it ended, false past the bounds or when the client went away. */
function readToEnd(req: IncomingMessage, ms: number): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (ms <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      req.off('data', count).off('end', ended).off('close', gone);
      resolve(whole);
    };
    // a body Fastify began to read comes as text (it set the encoding)
    const count = (chunk: Buffer | string) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (bytes > OVERSIZED_BODY_DRAIN.bytes) finish(false);
    };
    const ended = () => finish(true);
    const gone = () => finish(false);
    const timer = setTimeout(gone, ms);
    req.on('data', count).once('end', ended).once('close', gone);
    req.resume();
  });
}

/**
 * Shuts our side once the answer is written (the client reads it, then the end of the
 * connection) and keeps reading: the HTTP parser drops the rest of the body. The socket goes when
 * the client shuts its side too, or after lingerMs.
 */
function closeLingering(socket: Socket): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), OVERSIZED_BODY_DRAIN.lingerMs);
  socket.once('close', () => clearTimeout(timer));
}
