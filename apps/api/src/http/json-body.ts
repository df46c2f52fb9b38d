import { ValidationError } from '@ipledger/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The deepest JSON a request body may nest: the contract's deepest is 2 (a label map in an object). */
export const MAX_JSON_DEPTH = 32;

/**
 * One pass over the raw text, before JSON.parse: refuses nesting deeper than MAX_JSON_DEPTH (a
 * 5,000-deep body would overflow the stack in validation) and the escape for NUL, which
 * PostgreSQL text cannot hold. Raw control characters inside strings are left to JSON.parse.
 */
export function jsonBodyProblem(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) {
        if (text.startsWith('u0000', i + 1)) return `a string holds the NUL character (\\u0000) at offset ${i}`;
        i++;
      } else if (c === 0x22 /* " */) {
        inString = false;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels (at offset ${i})`;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return undefined;
}

/**
 * Replaces Fastify's JSON parser. Plain JSON.parse keeps a "__proto__" key as an ordinary own
 * property (it is a valid label key); nothing here assigns keys onto existing objects, so it
 * cannot reach a prototype.
 */
export function useJsonBodyParser(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.removeContentTypeParser(['application/json']);
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit },
    (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      const text = body.toString();
      if (text.trim() === '') return done(null, undefined);
      const problem = jsonBodyProblem(text);
      if (problem) return done(new ValidationError('INVALID_ARGUMENT', `request body refused: ${problem}`));
      try {
        done(null, JSON.parse(text));
      } catch (err) {
        done(new ValidationError('INVALID_ARGUMENT', `request body is not valid JSON: ${(err as Error).message}`));
      }
    },
  );
}
