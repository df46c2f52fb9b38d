import { startTestApi, type TestApi } from '../../../test/support/test-api';

const ADMIN = 'headers-admin-token';

/** A Content-Security-Policy header as directive -> sources. */
function policy(header: string | undefined): Record<string, string[]> {
  expect(header).toEqual(expect.any(String));
  return Object.fromEntries(
    header!
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name, sources]),
  );
}

/** Issue 20, "No CSP, X-Frame-Options, nosniff or Referrer-Policy on /ui, /docs or /v1". */
describe('security headers (helmet)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi('security_headers', { env: { IPAM_TOKENS: `${ADMIN}:admin` } });
  });
  afterAll(() => api?.close());

  /** the web UI's page and one of its assets, Swagger UI's page, its script and its document */
  const pages = async () => {
    const ui = await api.http().get('/ui/').expect(200);
    const asset = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(ui.text)?.[1];
    expect(asset).toEqual(expect.any(String));
    return [
      ui,
      await api.http().get(asset!).expect(200),
      await api.http().get('/docs').expect(200),
      await api.http().get('/docs/swagger-ui-init.js').expect(200),
      await api.http().get('/docs-json').expect(200),
    ];
  };

  it('lets /ui and /docs load from their own origin only, never framed, never sniffed, never sending a referrer', async () => {
    for (const res of await pages()) {
      const what = res.request.url;
      const csp = policy(res.headers['content-security-policy']);
      // every fetch directive that is set names no other origin: only 'self', 'none', data: images, inline styles
      const sources = Object.entries(csp).filter(([name]) => name.endsWith('-src') || name === 'base-uri' || name === 'form-action');
      const foreign = sources.flatMap(([name, list]) =>
        list
          .filter(
            (s) =>
              !["'self'", "'none'"].includes(s) &&
              !(name === 'img-src' && s === 'data:') &&
              !(name === 'style-src' && s === "'unsafe-inline'"),
          )
          .map((s) => `${name} ${s}`),
      );
      expect({ what, foreign }).toEqual({ what, foreign: [] });
      expect({
        what,
        defaultSrc: csp['default-src'],
        scriptSrc: csp['script-src'],
        frameAncestors: csp['frame-ancestors'],
        objectSrc: csp['object-src'],
      }).toEqual({
        what,
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
      });
      expect({
        what,
        frame: res.headers['x-frame-options'],
        sniff: res.headers['x-content-type-options'],
        referrer: res.headers['referrer-policy'],
      }).toEqual({ what, frame: 'DENY', sniff: 'nosniff', referrer: 'no-referrer' });
      // plain HTTP: no HSTS, and no upgrade of the page's own assets to an https:// that is not there
      expect({ what, hsts: res.headers['strict-transport-security'], upgrade: csp['upgrade-insecure-requests'] }).toEqual({ what });
    }
  });

  it('gives JSON answers nosniff: a list, a refusal for want of a token, a 404 and a validation error', async () => {
    const answers = [
      await api.http().get('/v1/pools').set('authorization', `Bearer ${ADMIN}`).expect(200),
      await api.http().get('/v1/pools').expect(401),
      await api.http().get('/v1/pools/no-such-pool').set('authorization', `Bearer ${ADMIN}`).expect(404),
      await api.http().post('/v1/pools').set('authorization', `Bearer ${ADMIN}`).send({ name: 'x', cidr: 'rack-7' }).expect(400),
      await api.http().get('/healthz').expect(200),
    ];
    for (const res of answers) {
      const what = `${res.request.method} ${res.request.url} ${res.status}`;
      expect({ what, type: res.headers['content-type'], sniff: res.headers['x-content-type-options'] }).toEqual({
        what,
        type: expect.stringMatching(/^application\/json/),
        sniff: 'nosniff',
      });
    }
  });
});
