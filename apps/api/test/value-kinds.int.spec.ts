import { LIMITS, TEXT_KINDS, type TextKind } from '../src/http/limits';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  maxLength?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  $ref?: string;
  'x-kind'?: TextKind;
}
interface Parameter {
  name: string;
  in: 'path' | 'query';
  schema: Schema;
  'x-kind'?: TextKind;
}
interface Document {
  paths: Record<
    string,
    Record<string, { parameters?: Parameter[]; requestBody?: { content: { 'application/json': { schema: Schema } } } }>
  >;
  components: { schemas: Record<string, Schema> };
}

/** One place a route takes a text value: where, under what name, of which kind, and how long the document says it may be. */
interface Taken {
  method: string;
  path: string;
  where: 'path' | 'query' | 'body';
  name: string;
  /** an item of a list (`pools`, `reserved`) */
  item: boolean;
  kind: TextKind | undefined;
  maxLength: number | undefined;
}

/** Every text value a request of the served OpenAPI document takes (a free-form text: no format, no enum alone). */
function textsTaken(doc: Document): Taken[] {
  const taken: Taken[] = [];
  const isText = (s: Schema) => s.type === 'string' && s.format === undefined && !(s.enum && !s['x-kind']);
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const p of operation.parameters ?? []) {
        if (isText(p.schema)) {
          const kind = p['x-kind'] ?? p.schema['x-kind'];
          taken.push({ method, path, where: p.in, name: p.name, item: false, kind, maxLength: p.schema.maxLength });
        }
      }
      const ref = operation.requestBody?.content['application/json'].schema.$ref;
      const body = ref ? doc.components.schemas[ref.split('/').at(-1)!] : undefined;
      for (const [name, s] of Object.entries(body?.properties ?? {})) {
        const text = isText(s) ? s : s.type === 'array' && s.items && isText(s.items) ? s.items : null;
        if (text) taken.push({ method, path, where: 'body', name, item: text !== s, kind: text['x-kind'], maxLength: text.maxLength });
      }
    }
  }
  return taken;
}

/** The request that gives `value` to that one place (every other path parameter a short valid word). */
function requestWith(api: TestApi, t: Taken, value: string) {
  const url = t.path.replace(/\{(\w+)\}/g, (_, name: string) => (t.where === 'path' && name === t.name ? value : 'x'));
  const query = t.where === 'query' ? `?${t.name}=${value}` : '';
  const req = api.http()[t.method as 'get' | 'post' | 'put' | 'patch' | 'delete'](url + query);
  return t.where === 'body' ? req.send({ [t.name]: t.item ? [value] : value }) : req.send();
}

const tooLong = (t: Taken, max: number) => `${t.item ? 'each value in ' : ''}${t.name} must be shorter than or equal to ${max} characters`;

describe('one limit for each kind of value, the same answer at every route that takes it', () => {
  let api: TestApi;
  let taken: Taken[];
  beforeAll(async () => {
    api = await startTestApi('value_kinds');
    taken = textsTaken((await api.http().get('/docs-json').expect(200)).body as Document);
  });
  afterAll(() => api.close());

  it('names the kind of every text a route takes, bounded by that kind’s one limit', () => {
    expect(taken.filter((t) => !t.kind).map((t) => `${t.method} ${t.path} ${t.where} ${t.name}`)).toEqual([]);
    expect(taken.filter((t) => t.maxLength !== LIMITS[t.kind!]).map((t) => `${t.method} ${t.path} ${t.name}: ${t.maxLength}`)).toEqual([]);
    // the kinds where the findings were: a namespace is a namespace in a list's filter too
    const kindsOf = (name: string) => new Set(taken.filter((t) => t.name === name && t.where !== 'path').map((t) => t.kind));
    expect(kindsOf('namespace')).toEqual(new Set(['namespace']));
    expect(kindsOf('node')).toEqual(new Set(['nodeName']));
    expect(kindsOf('pod')).toEqual(new Set(['podName']));
    expect(taken.length).toBeGreaterThan(40);
  });

  it('refuses one character over the kind’s limit with the same 400 wherever it comes (path, query, body), and takes the limit itself', async () => {
    const wrong: string[] = [];
    for (const t of taken) {
      const max = TEXT_KINDS[t.kind!].max;
      const over = await requestWith(api, t, 'a'.repeat(max + 1));
      // /external-ipam answers problem details: the message is their `detail`
      const message = (body: { message?: string; detail?: string } | undefined) => String(body?.message ?? body?.detail);
      const said = { status: over.status, code: over.body?.code, says: message(over.body).includes(tooLong(t, max)) };
      if (said.status !== 400 || said.code !== 'INVALID_ARGUMENT' || !said.says)
        wrong.push(`${t.method.toUpperCase()} ${t.path} ${t.where} ${t.name} (${t.kind}) at ${max + 1}: ${JSON.stringify(over.body)}`);
      const at = await requestWith(api, t, 'a'.repeat(max));
      if (message(at.body).includes(`${t.name} must be shorter`))
        wrong.push(`${t.method.toUpperCase()} ${t.path} ${t.where} ${t.name} (${t.kind}) at ${max}: ${JSON.stringify(at.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers ?namespace= of 64 characters with 400 on /v1/ipsets as on /v1/allocations', async () => {
    const namespace = 'a'.repeat(64);
    const [ipsets, allocations] = await Promise.all([
      api.http().get(`/v1/ipsets?namespace=${namespace}`),
      api.http().get(`/v1/allocations?namespace=${namespace}`),
    ]);
    expect(ipsets.status).toBe(400);
    expect(ipsets.body).toEqual(allocations.body);
    expect(ipsets.body.message).toBe('namespace must be shorter than or equal to 63 characters');
  });
});
