import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { freePort, reachable } from '../../../test/support/free-port';
import { newcomerEnv } from '../../../test/support/newcomer-api';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ROOT = join(__dirname, '../../..');
const MAIN = join(ROOT, 'dist/api/main.js');

/** A port held by another server (another ipledger, another clone's PostgreSQL), on loopback. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** The built API run until it exits by itself: its exit code and every line it wrote. */
function runApi(env: NodeJS.ProcessEnv): { code: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [MAIN], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status, lines: `${run.stdout}${run.stderr}`.split('\n').filter(Boolean) };
}

/** A start refused as it must be: the exit code, and one error line (no stack) with the message. */
function expectRefused({ code, lines }: { code: number | null; lines: string[] }, exitCode: number, message: string): void {
  expect(code).toBe(exitCode);
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0])).toEqual({ level: 'error', time: expect.any(String), context: 'ipledger', message });
}

const messages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { message: string }).message);

/** curl as the README has a newcomer run it: the answer's body */
const curl = (...args: string[]) => JSON.parse(spawnSync('curl', ['-s', ...args], { encoding: 'utf8' }).stdout) as Record<string, unknown>;

/**
 * A newcomer's mistakes, each answered by the built API (dist/, as `npm start` runs it) in one line
 * that says what is wrong and what to do, with an exit code that means something (EXIT_CODES).
 */
describe("the newcomer's mistakes, answered by the built API", () => {
  let db: TestDatabase;
  beforeAll(async () => (db = await createTestDatabase('newcomer_api')));
  afterAll(() => db.drop());

  const env = (settings: NodeJS.ProcessEnv) => newcomerEnv({ DATABASE_URL: db.url, IPAM_LOG_FORMAT: 'json', ...settings });

  it('PORT in use: one line saying so and to set PORT, exit 4, and no success line', async () => {
    const { port, server } = await holdPort();
    try {
      expectRefused(
        runApi(env({ PORT: String(port) })),
        4,
        `port ${port} is in use (127.0.0.1:${port}: another ipledger, or another server): set PORT to a free port, e.g. PORT=${port + 1} npm start`,
      );
    } finally {
      server.close();
    }
  });

  it('DATABASE_URL unreachable: one line naming host:port, not the password, and what to check; exit 5', async () => {
    const down = await freePort();
    const run = runApi(env({ PORT: String(await freePort()), DATABASE_URL: `postgres://bob:s3cret@127.0.0.1:${down}/ipledger` }));
    expectRefused(
      run,
      5,
      `cannot connect to PostgreSQL at 127.0.0.1:${down}, database ipledger, user bob (DATABASE_URL): ` +
        'connection refused (nothing listens there); check DATABASE_URL and that PostgreSQL runs there',
    );
    expect(run.lines[0]).not.toContain('s3cret');
  });

  it("the embedded PostgreSQL's port taken (a second clone): names the port and IPAM_EMBEDDED_POSTGRES_PORT; exit 4", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipledger-newcomer-'));
    chmodSync(dataDir, 0o755); // run as root, the server runs as `postgres`
    const { port, server } = await holdPort();
    try {
      const { code, lines } = runApi(
        newcomerEnv({
          IPAM_LOG_FORMAT: 'json',
          PORT: String(await freePort()),
          IPAM_DATA_DIR: dataDir,
          IPAM_EMBEDDED_POSTGRES_PORT: String(port),
        }),
      );
      expect(code).toBe(4);
      const errors = lines
        .map((line) => JSON.parse(line) as { level: string; message: string; stack?: string })
        .filter((l) => l.level === 'error');
      expect(errors).toEqual([
        {
          level: 'error',
          time: expect.any(String),
          context: 'ipledger',
          message:
            `the embedded PostgreSQL cannot listen on 127.0.0.1:${port}: the port is in use (another checkout's npm start, or another PostgreSQL); ` +
            `set IPAM_EMBEDDED_POSTGRES_PORT to a free port, e.g. IPAM_EMBEDDED_POSTGRES_PORT=${port + 1}, or DATABASE_URL to use a server of your own`,
        },
      ]);
    } finally {
      server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('in a terminal: text lines, no route mapping, the rule allocations get by default; Ctrl-C stops it', async () => {
    const port = await freePort();
    // script(1) gives the API a terminal as stdout, as `npm start` in a shell does
    const child = spawn('script', ['-qfec', `${process.execPath} ${MAIN}`, '/dev/null'], {
      cwd: ROOT,
      env: newcomerEnv({ DATABASE_URL: db.url, PORT: String(port), IPAM_LOG_FORMAT: undefined }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit');
    for (const deadline = Date.now() + 60_000; !output.includes('allocations that name no pool rule use'); ) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill(); // script(1) gone, the terminal hangs up: the API stops too
        throw new Error(`the API did not start:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.stdin.write('\x03'); // Ctrl-C, through the terminal
    await exited;
    expect(await reachable(port)).toBe(false);
    // the terminal echoes the Ctrl-C as ^C
    const lines = output
      .split(/\r?\n/)
      .map((line) => line.replace(/^\^C/, ''))
      .filter(Boolean);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z (DEBUG|INFO |WARN |ERROR) /);
    expect(lines).toContainEqual(
      expect.stringMatching(/INFO {2}\[ipledger\] allocations that name no pool rule use: every pool \(set IPAM_DEFAULT_MATCH_LABEL/),
    );
    expect(output).not.toMatch(/Mapped \{|RoutesResolver|successfully started/);
  }, 90_000);

  describe('serving (JSON lines through a pipe)', () => {
    let api: ApiProcess;
    beforeAll(async () => (api = await startApiProcess(db.url, { from: 'dist', env: { IPAM_LOG_FORMAT: undefined } })));
    afterAll(() => api.stop());
    const postJson = (path: string, json: string) =>
      curl('-XPOST', `${api.base}${path}`, '-H', 'content-type: application/json', '-d', json);

    it('writes JSON when stdout is no terminal, with no route mapping and no Nest success line', () => {
      const start = messages(api.lines);
      expect(start).toContain(
        'allocations that name no pool rule use: every pool (set IPAM_DEFAULT_MATCH_LABEL, e.g. pool-group, for matchLabel)',
      );
      expect(start).not.toContainEqual(expect.stringMatching(/^Mapped \{|Nest application successfully started/));
    });

    it('a missing field: "node is required"', () => {
      const body = postJson('/v1/allocations', '{"handle":"h","namespace":"default","pod":"p"}');
      expect(body).toMatchObject({ statusCode: 400, code: 'INVALID_ARGUMENT', message: 'node is required' });
    });

    it.each([
      ['no content-type (curl -d sends a form)', []],
      ['text/plain', ['-H', 'content-type: text/plain']],
    ])('a body with %s: 415, saying to send content-type: application/json', (_, header) => {
      const body = curl('-XPOST', `${api.base}/v1/pools`, ...header, '-d', '{"name":"p","cidr":"10.4.0.0/24"}');
      expect(body).toEqual({
        statusCode: 415,
        error: 'Unsupported Media Type',
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: "send the body as JSON with the header content-type: application/json (curl: -H 'content-type: application/json')",
      });
    });

    it('an allocation before any pool exists: "there are no pools yet: POST /v1/pools"', () => {
      const body = postJson('/v1/allocations', '{"handle":"h","node":"n","namespace":"default","pod":"p"}');
      expect(body).toMatchObject({
        statusCode: 409,
        code: 'NO_ELIGIBLE_POOL',
        message: 'there are no pools yet: create one with POST /v1/pools (or an IPPool object)',
      });
    });

    it("runs the README's blocks example as it stands, against Quickstart 1's API", () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('## One pool with blocks instead of one pool per node'));
      const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
      expect(block).toContain('API=http://127.0.0.1:8080');
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', block.replace('API=http://127.0.0.1:8080', `API=${api.base}`)], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      // no answer in the error shape
      expect(run.stdout).not.toContain('statusCode');
      expect(curl(`${api.base}/v1/pools/group-1`)).toMatchObject({ cidr: '10.40.0.0/16', blockSize: 26, blockAffinity: 'strict' });
      expect(curl(`${api.base}/v1/nodes/worker-7`)).toMatchObject({ labels: { 'pool-group': 'group-1' } });
    });
  });

  it('says at start which rule allocations that name none get: matchLabel with IPAM_DEFAULT_MATCH_LABEL', async () => {
    const api = await startApiProcess(db.url, { from: 'dist', env: { IPAM_LOG_FORMAT: 'json', IPAM_DEFAULT_MATCH_LABEL: 'pool-group' } });
    await api.stop();
    expect(messages(api.lines)).toContain('allocations that name no pool rule use: matchLabel pool-group (IPAM_DEFAULT_MATCH_LABEL)');
  });
});
