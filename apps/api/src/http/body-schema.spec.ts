import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { InvalidInputError } from '@ipledger/domain';
import fc from 'fast-check';
import { CreateAllocationDto } from '../allocations/dto/create-allocation.dto';
import { LIMITS, TEXT_KINDS } from './limits';
import { bodyCheckFor } from './body-schema';
import { validationPipe, VALIDATION_OPTIONS } from './validation.pipe';

/** class-validator as the pipe ran it before the compiled checks: the reference. */
const reference = new ValidationPipe(VALIDATION_OPTIONS);
const metadata = { type: 'body' as const, metatype: CreateAllocationDto, data: undefined };

async function problems(pipe: ValidationPipe, body: object): Promise<string[]> {
  try {
    await pipe.transform(JSON.parse(JSON.stringify(body)) as object, metadata);
    return [];
  } catch (err) {
    if (!(err instanceof InvalidInputError)) throw err;
    return err.message.split('; ');
  }
}

const LENGTHS = [...new Set(Object.values(TEXT_KINDS).map((kind) => kind.max))].flatMap((n) => [n, n + 1]);
/** Strings around each limit, with characters outside the BMP (one character, two UTF-16 units). */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(...LENGTHS).chain((n) => fc.constantFrom('a'.repeat(n), '😀'.repeat(n))),
);
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.oneof(text, fc.constantFrom(4, 6, 4.5, null)), { maxLength: 3 }),
  fc.constantFrom(Array(LIMITS.pools).fill('p'), Array(LIMITS.pools + 1).fill('p'), Array(LIMITS.pools).fill(1)),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);
const fields = [
  'handle',
  'node',
  'namespace',
  'pod',
  'podUid',
  'network',
  'owner',
  'ip',
  'families',
  'pools',
  'poolSelector',
  'matchLabel',
];
const valid = { handle: 'c0ffee:eth0', node: 'worker-1', namespace: 'default', pod: 'web-0' };

describe("the allocation body's compiled schema (body-schema.ts)", () => {
  it('is what the route uses', () => {
    expect(bodyCheckFor(CreateAllocationDto)).toBeDefined();
  });

  it('accepts and refuses exactly what class-validator does, with its messages', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...fields, 'extra'), value, { maxKeys: 6 }), fc.boolean(), async (given, onValid) => {
        const body = onValid ? { ...valid, ...given } : given;
        const expected = await problems(reference, body);
        const got = await problems(validationPipe, body);
        expect(got.length === 0).toBe(expected.length === 0);
        // class-validator may say more of the same property (a number is also "too long"): ours is a part of it
        for (const message of got) expect(expected).toContain(message);
      }),
      { numRuns: 1_000 },
    );
  });

  it('draws each limit where class-validator does: every field at every limit and one past it', async () => {
    for (const field of fields) {
      for (const n of LENGTHS) {
        for (const body of [
          { ...valid, [field]: 'a'.repeat(n) },
          { ...valid, [field]: ['a'.repeat(n)] },
          { ...valid, [field]: Array<string>(n).fill('a') },
        ]) {
          const expected = await problems(reference, body);
          expect([field, n, (await problems(validationPipe, body)).length === 0]).toEqual([field, n, expected.length === 0]);
        }
      }
    }
  });

  it('says a missing field is required, rather than every rule it breaks, as class-validator in the pipe does', async () => {
    const { node: _, ...withoutNode } = valid;
    expect(await problems(validationPipe, withoutNode)).toEqual(['node is required']);
    expect(await problems(reference, withoutNode)).toEqual(['node is required']);
    expect(await problems(validationPipe, {})).toEqual([
      'handle is required',
      'node is required',
      'namespace is required',
      'pod is required',
    ]);
    // present but wrong is said as before
    expect(await problems(validationPipe, { ...valid, node: 7 })).toEqual(['node must be a string']);
  });

  it('hands on the body as given when it is valid', async () => {
    const body = { ...valid, pools: ['a', 'b'], families: [4, 6] };
    await expect(validationPipe.transform(body, metadata)).resolves.toBe(body);
  });

  it.each(['__proto__', 'constructor'])('refuses an unknown %s field, which class-validator let through', async (key) => {
    const body = JSON.parse(`{"handle":"h","node":"n","namespace":"ns","pod":"p","${key}":{"x":1}}`) as object;
    expect(await problems(reference, body)).toEqual([]);
    expect(await problems(validationPipe, body)).toEqual([`property ${key} should not exist`]);
  });
});
