import { InvalidInputError } from '@ipledger/domain';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/** The deepest JSON a request body may nest: the contract's deepest is 2 (a label map in an object). */
export const MAX_JSON_DEPTH = 32;

/** The code unit of a `\uXXXX` escape starting at `at` (the backslash), or -1. */
function escapedUnit(text: string, at: number): number {
  if (text[at] !== '\\' || text[at + 1] !== 'u') return -1;
  const hex = text.slice(at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? parseInt(hex, 16) : -1;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * One pass over the raw text, before JSON.parse: refuses nesting deeper than MAX_JSON_DEPTH (a
 * 5,000-deep body would overflow the stack in validation), the escape for NUL, which PostgreSQL
 * text cannot hold, and escapes of unpaired surrogates, which are no character at all (PostgreSQL
 * refuses them in JSON). Raw control characters inside strings are left to JSON.parse; the body
 * was decoded from UTF-8, so a raw unpaired surrogate cannot occur.
 */
export function jsonBodyProblem(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) {
        const unit = escapedUnit(text, i);
        if (unit === 0) return `a string holds the NUL character (\\u0000) at offset ${i}`;
        if (isHighSurrogate(unit) && isLowSurrogate(escapedUnit(text, i + 6))) {
          i += 11;
        } else if (isHighSurrogate(unit) || isLowSurrogate(unit)) {
          return `a string holds an unpaired surrogate (\\u${text.slice(i + 2, i + 6)}) at offset ${i}, which is not a character`;
        } else {
          i += unit >= 0 ? 5 : 1;
        }
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
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  // a JSON body sent as text would reach validation as one string, every field of it "missing": refused
  // as any other type is (415, error-mapping.ts says to send content-type: application/json); empty, it is no body
  fastify.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit }, (_req: FastifyRequest, body: string | Buffer, done) =>
    body.toString().trim() === '' ? done(null, undefined) : done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE()),
  );
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit },
    (_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      const text = body.toString();
      if (text.trim() === '') return done(null, undefined);
      const problem = jsonBodyProblem(text);
      if (problem) return done(new InvalidInputError('INVALID_ARGUMENT', `request body refused: ${problem}`));
      try {
        done(null, JSON.parse(text));
      } catch (err) {
        done(new InvalidInputError('INVALID_ARGUMENT', `request body is not valid JSON: ${(err as Error).message}`));
      }
    },
  );
}
