import fc from 'fast-check';

/**
 * Requests for every operation of an OpenAPI document, built from its own schemas (types,
 * maxLength, maxItems, maximum, formats, examples): mostly plausible values, so that requests
 * reach the handlers and the database, mixed with hostile ones (limits ±1, NUL, wrong types,
 * deep nesting, prototype keys, forged tokens, impossible times, broken JSON).
 */

interface Schema {
  type?: string;
  format?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  maxProperties?: number;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
  example?: unknown;
  enum?: unknown[];
  $ref?: string;
}

interface Operation {
  parameters?: Array<{ name: string; in: 'path' | 'query'; required?: boolean; schema: Schema }>;
  requestBody?: { content: { 'application/json': { schema: Schema } } };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface FuzzRequest {
  /** the operation, as `METHOD /path/{param}` */
  route: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Names, keys and values the seeded database knows, so that plausible requests find things. */
export interface Vocabulary {
  words: readonly string[];
  /** plausible values for body fields and query parameters of these names (a CIDR, an address, families) */
  fields?: Record<string, fc.Arbitrary<unknown>>;
}

const PROTOTYPE_KEYS = ['constructor', 'prototype', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];

/** Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD, as a client would send it). */
const encode = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`))
    .join('');

const dnsName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/);

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** Cursors in the shape the server issues, with numbers outside its columns' ranges (smallint, integer, bigint, xid8). */
const forgedCursor = fc.oneof(
  fc.constantFrom('WyJhIiw5OTk5OTk5OV0'), // ["a",99999999]: once a 500 (smallint overflow)
  fc
    .tuple(fc.constantFrom('a', 'p', 'h', ''), fc.constantFrom(32768, -32769, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e300, 4.5, -0.5))
    .map((key) => base64url(JSON.stringify(key))),
  fc.constantFrom('9223372036854775808:1', '1:9223372036854775808', '18446744073709551616:1', '-1:1', '1:-1').map(base64url),
  fc.constantFrom('2147483648', '99999999999', '-1'),
);

const hostileString = fc.oneof(
  forgedCursor,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '%00', '%', '%zz', '..', '/', '\\', "'; DROP TABLE events; --", '${x}', '\ud800'),
  fc.constantFrom('1e30', '-1', 'NaN', 'Infinity', '0x10', '9007199254740993', '-0'),
  fc.constantFrom(
    '2016-12-31T23:59:60Z',
    '2021-02-29T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '2021-01-01T00:00:00+24:00',
  ),
  fc.constantFrom('::ffff:10.0.0.1', '::128.0.0.1', '::8000:0/98', '10.0.0.0/33', '256.0.0.1', 'fe80::1%eth0', '1.2.3.4/0'),
  fc.nat({ max: 6000 }).map((n) => 'a'.repeat(n)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
  fc
    .array(fc.oneof(fc.constant(null), fc.string({ maxLength: 5 }), fc.integer()), { maxLength: 3 })
    .map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
  fc
    .array(fc.constantFrom(...PROTOTYPE_KEYS, 'tier', 'k', '!k', 'a in (b)', 'x notin ()', '==', '=', ',', '(', ')'), { maxLength: 80 })
    .map((parts) => parts.join(',')),
);

/** Deeper than any limit, in arrays or objects. */
const deepValue = fc
  .integer({ min: 30, max: 200 })
  .chain((depth) =>
    fc
      .constantFrom(`${'['.repeat(depth)}${']'.repeat(depth)}`, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)
      .map((text) => JSON.parse(text)),
  );

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 4.5, 2 ** 53 + 2, [], {}, ''),
  hostileString,
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  deepValue,
);

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  return schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
}

function plausibleString(schema: Schema, vocabulary: Vocabulary): fc.Arbitrary<string> {
  const max = schema.maxLength;
  const options: Array<fc.Arbitrary<string>> = [fc.constantFrom(...vocabulary.words), dnsName, fc.string({ maxLength: 12 })];
  if (typeof schema.example === 'string') options.push(fc.constant(schema.example));
  if (schema.format === 'date-time') {
    options.push(fc.date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((d) => d.toISOString()));
  }
  if (max !== undefined) options.push(fc.constantFrom('a'.repeat(max), 'a'.repeat(max + 1)));
  return fc.oneof(...options);
}

/** A value for `schema`: plausible three times in four, else hostile. */
function valueFor(doc: OpenApiDocument, raw: Schema, vocabulary: Vocabulary, depth = 0, field?: string): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  let plausible: fc.Arbitrary<unknown>;
  const known = field === undefined ? undefined : vocabulary.fields?.[field];
  if (known)
    plausible = fc.oneof(
      { arbitrary: known, weight: 4 },
      { arbitrary: valueFor(doc, schema, { ...vocabulary, fields: {} }, 4), weight: 1 },
    );
  else if (schema.enum) plausible = fc.constantFrom(...schema.enum);
  else if (schema.type === 'string') plausible = plausibleString(schema, vocabulary);
  else if (schema.type === 'number' || schema.type === 'integer') {
    const min = schema.minimum ?? -5;
    const max = Math.min(schema.maximum ?? 70_000, 70_000);
    plausible = fc.oneof(fc.integer({ min, max }), fc.constantFrom(min - 1, (schema.maximum ?? max) + 1, min, schema.maximum ?? max));
  } else if (schema.type === 'boolean') plausible = fc.boolean();
  else if (schema.type === 'array' && schema.items) {
    const items = valueFor(doc, schema.items, vocabulary, depth + 1);
    plausible = fc.oneof(
      fc.array(items, { maxLength: 4 }),
      fc.constant(schema.maxItems ?? 0).chain((n) => fc.array(items, { minLength: n + 1, maxLength: n + 1 })),
    );
  } else if (schema.properties) {
    // an optional field is given one time in four: requests that give few of them pass the
    // cross-field rules (one pool rule, an ip that fits the families) often enough to do work
    const model = Object.fromEntries(
      Object.entries(schema.properties).map(([key, s]) => {
        const value = valueFor(doc, s, vocabulary, depth + 1, key);
        return [key, schema.required?.includes(key) ? value : fc.option(value, { nil: undefined, freq: 3 })];
      }),
    );
    plausible = fc
      .tuple(
        fc.record(model),
        fc.option(fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), dnsName), hostileValue, { maxKeys: 2 }), { freq: 10 }),
      )
      .map(([record, extra]) => ({ ...record, ...(extra ?? {}) }));
  } else if (schema.type === 'object') {
    const values =
      typeof schema.additionalProperties === 'object' ? valueFor(doc, schema.additionalProperties, vocabulary, depth + 1) : hostileValue;
    const key = fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, ...vocabulary.words, 'example.com/zone'), dnsName, fc.string({ maxLength: 8 }));
    plausible = fc.oneof(
      fc.dictionary(key, values, { maxKeys: 5 }),
      fc.constant((schema.maxProperties ?? 0) + 1).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']))),
    );
  } else plausible = hostileValue;
  if (schema.nullable) plausible = fc.oneof(plausible, fc.constant(null));
  return depth > 3 ? plausible : fc.oneof({ arbitrary: plausible, weight: 9 }, { arbitrary: hostileValue, weight: 1 });
}

/** A query parameter: query strings carry only text, so the values are text. */
function queryValue(name: string, schema: Schema, vocabulary: Vocabulary): fc.Arbitrary<string> {
  const plausible =
    schema.type === 'number' || schema.type === 'integer'
      ? fc.oneof(
          fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 2000, 2000) }).map(String),
          fc.constantFrom(String((schema.minimum ?? 0) - 1), String((schema.maximum ?? 1000) + 1), '1.5', 'abc', ''),
        )
      : schema.type === 'boolean'
        ? fc.constantFrom('true', 'false', 'yes', '1', '')
        : plausibleString(schema, vocabulary);
  // a page cursor is forged one time in three: decoded and range-checked before any query, or a 500
  if (name === 'continue' || name === 'after')
    return fc.oneof({ arbitrary: plausible, weight: 1 }, { arbitrary: forgedCursor, weight: 1 }, { arbitrary: hostileString, weight: 1 });
  return fc.oneof({ arbitrary: plausible, weight: 3 }, { arbitrary: hostileString, weight: 1 });
}

/** A path parameter: usually a known name, else anything, percent-encoded (or, rarely, not). */
function pathValue(vocabulary: Vocabulary): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...vocabulary.words), weight: 4 },
    { arbitrary: dnsName, weight: 2 },
    { arbitrary: hostileString.map(encode), weight: 2 },
    { arbitrary: fc.constantFrom('%zz', '%', '%c0%80', '..', '%2e%2e', '%2F'), weight: 1 },
  );
}

const rawBody = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '[]',
    'null',
    '"text"',
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
  ),
  fc.integer({ min: 30, max: 6000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 30, max: 3000 }).map((n) => `{"labels":${'{"a":'.repeat(n)}"b"${'}'.repeat(n)}}`),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constant('{"handle":"h\\u0000","node":"n","namespace":"ns","pod":"p"}'),
);

/** One operation's requests. */
function operationRequests(
  doc: OpenApiDocument,
  path: string,
  method: string,
  op: Operation,
  vocabulary: Vocabulary,
): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const bodySchema = op.requestBody?.content['application/json'].schema;
  const body: fc.Arbitrary<{ payload?: string; contentType?: string }> = bodySchema
    ? fc.oneof(
        {
          arbitrary: valueFor(doc, bodySchema, vocabulary).map((v) => ({ payload: JSON.stringify(v), contentType: 'application/json' })),
          weight: 8,
        },
        { arbitrary: rawBody.map((payload) => ({ payload, contentType: 'application/json' })), weight: 1 },
        {
          arbitrary: fc
            .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1')
            .map((contentType) => ({ payload: 'a=b', contentType })),
          weight: 1,
        },
      )
    : fc.constant({});
  return fc
    .record({
      path: fc.tuple(...pathParams.map(() => pathValue(vocabulary))),
      query: fc.tuple(...queryParams.map((p) => fc.option(queryValue(p.name, p.schema, vocabulary), { freq: 2 }))),
      body,
    })
    .map(({ path: values, query, body: { payload, contentType } }) => {
      let i = 0;
      const url = path.replace(/\{\w+\}/g, () => values[i++]);
      const search = queryParams
        .map((p, j) => (query[j] === null ? null : `${encode(p.name)}=${encode(query[j])}`))
        .filter((part) => part !== null)
        .join('&');
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      return {
        route: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        url: search ? `${url}?${search}` : url,
        headers,
        payload,
      };
    });
}

/** Requests for every operation, each operation equally likely. */
export function openApiRequests(doc: OpenApiDocument, vocabulary: Vocabulary): { routes: string[]; requests: fc.Arbitrary<FuzzRequest> } {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => operationRequests(doc, path, method, op, vocabulary)),
  );
  const routes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
  return { routes, requests: fc.oneof(...operations) };
}
