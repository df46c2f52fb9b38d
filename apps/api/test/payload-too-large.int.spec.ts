import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { OVERSIZED_BODY_DRAIN } from '../src/http/oversized-body';

const TWO_MIB = 2 * 1024 * 1024;
const AUTH = { authorization: 'Bearer too-large-admin' };
const oversized = JSON.stringify({ handle: 'h', node: 'n', namespace: 'default', pod: 'p', podUid: 'x'.repeat(TWO_MIB) });

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The HTTP/1.1 answers complete in `bytes` (each with Content-Length), in order. */
function answersIn(bytes: Buffer): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) return answers;
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (bytes.length < end + 4 + length) return answers;
    const status = Number(statusLine.split(' ')[1]);
    // an interim 100 Continue has no body and is not the answer
    if (status !== 100) answers.push({ status, headers, body: bytes.subarray(end + 4, end + 4 + length).toString('utf8') });
    at = end + 4 + length;
  }
}

/**
 * A client that writes each request whole before it looks at any answer (as Go's net/http writes
 * a body it was given), on one connection: the answers, and whether the server closed it.
 */
function onOneConnection(
  port: number,
  requests: Array<string | Buffer>,
  expected: number,
): Promise<{ answers: Answer[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const done = () => resolve({ answers: answersIn(Buffer.concat(chunks)), closed });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (answersIn(Buffer.concat(chunks)).length === expected) {
        socket.end();
        done();
      }
    });
    socket.on('error', reject);
    socket.on('end', () => {
      closed = true;
      done();
    });
    void (async () => {
      for (const request of requests) {
        // the next request only once the previous one was answered: a keep-alive client's turn
        const answered = answersIn(Buffer.concat(chunks)).length;
        socket.write(request);
        while (answersIn(Buffer.concat(chunks)).length === answered && !closed) await new Promise((r) => setTimeout(r, 5));
      }
    })();
  });
}

const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  Buffer.concat([
    Buffer.from(
      [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `Authorization: ${AUTH.authorization}`]
        .concat(Object.entries(headers).map(([k, v]) => `${k}: ${v}`))
        .join('\r\n') + '\r\n\r\n',
    ),
    Buffer.from(body),
  ]);
const withLength = (path: string, body: string) => post(path, body, { 'Content-Length': String(Buffer.byteLength(body)) });
const chunked = (path: string, body: string, chunkBytes = 64 * 1024) => {
  const parts: string[] = [];
  for (let i = 0; i < body.length; i += chunkBytes) {
    const part = body.slice(i, i + chunkBytes);
    parts.push(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
  }
  return post(path, `${parts.join('')}0\r\n\r\n`, { 'Transfer-Encoding': 'chunked' });
};
const getPools = `GET /v1/pools HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${AUTH.authorization}\r\n\r\n`;

const expectTooLarge = (answer: Answer | undefined) => {
  expect(answer?.status).toBe(413);
  expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
};

describe('a body over the limit: a 413 that every client reads', () => {
  describe('the API as its own process, tokens on', () => {
    let db: TestDatabase;
    let api: ApiProcess;
    let port: number;
    beforeAll(async () => {
      db = await createTestDatabase('too_large');
      api = await startApiProcess(db.url, { from: 'dist', env: { IPAM_TOKENS: 'too-large-admin:admin', HOST: '127.0.0.1' } });
      port = Number(new URL(api.base).port);
    });
    afterAll(async () => {
      await api.stop();
      await db.drop();
    });

    it("answers 50 posts of 2 MiB through Node's fetch with 413 PAYLOAD_TOO_LARGE, every one", async () => {
      const answers: string[] = [];
      for (let i = 0; i < 50; i++) {
        try {
          const res = await fetch(`${api.base}/v1/allocations`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...AUTH },
            body: oversized,
          });
          answers.push(`${res.status} ${((await res.json()) as { code: string }).code}`);
        } catch (err) {
          answers.push(`${(err as Error).message}: ${String((err as { cause?: Error }).cause?.message)}`);
        }
      }
      expect(answers.filter((a) => a !== '413 PAYLOAD_TOO_LARGE')).toEqual([]);
    });

    it("answers a chunked upload of 2 MiB through Node's fetch (no Content-Length) with 413", async () => {
      for (let i = 0; i < 10; i++) {
        const bytes = Buffer.from(oversized);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
            controller.close();
          },
        });
        const res = await fetch(`${api.base}/v1/allocations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...AUTH },
          body,
          duplex: 'half',
        });
        expect(res.status).toBe(413);
        expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      }
    });

    it('answers curl with 413, with a length or chunked, and curl then reuses the connection', async () => {
      const file = join(tmpdir(), `too-large-${process.pid}.json`);
      writeFileSync(file, oversized);
      const curl = (...args: string[]) => promisify(execFile)('curl', ['-s', '-H', `Authorization: ${AUTH.authorization}`, ...args]);
      const upload = ['-H', 'Content-Type: application/json', '--data-binary', `@${file}`, `${api.base}/v1/allocations`];
      const codes: string[] = [];
      for (let i = 0; i < 10; i++) {
        // curl asks `Expect: 100-continue` for a body this large
        codes.push((await curl('-o', '/dev/null', '-w', '%{http_code}', ...upload)).stdout);
        codes.push((await curl('-o', '/dev/null', '-w', '%{http_code}', '-H', 'Transfer-Encoding: chunked', ...upload)).stdout);
      }
      expect(codes.filter((code) => code !== '413')).toEqual([]);
      // one curl, two transfers (--next resets the options): the second on the first one's connection (num_connects 0)
      const report = ['-o', '/dev/null', '-w', '%{http_code} %{num_connects}\\n'];
      const { stdout } = await curl(
        ...report,
        ...upload,
        '--next',
        '-s',
        '-H',
        `Authorization: ${AUTH.authorization}`,
        ...report,
        `${api.base}/v1/pools`,
      );
      expect(stdout.trim().split('\n')).toEqual(['413 1', '200 0']);
    });

    it('keeps a connection that sent a body over the limit open for the next request, with a length or chunked', async () => {
      for (const request of [withLength('/v1/allocations', oversized), chunked('/v1/pools', oversized)]) {
        const { answers, closed } = await onOneConnection(port, [request, getPools], 2);
        expectTooLarge(answers[0]);
        expect(answers[0].headers.connection).not.toBe('close');
        expect(answers[1]?.status).toBe(200);
        expect(closed).toBe(false);
      }
    });
  });

  describe('the bounds of what is read before the answer', () => {
    let api: TestApi;
    let port: number;
    beforeAll(async () => {
      api = await startTestApi('too_large_bounds', { env: { IPAM_REQUEST_TIMEOUT_MS: '3000' } });
      port = (api.app.getHttpServer().address() as AddressInfo).port;
    });
    afterAll(() => api.close());

    /**
     * Sends a body as fast as the connection takes it (chunked, or with a declared length of 1 GiB)
     * until the server answers or closes: the answers, and the bytes sent before.
     */
    function endlessUpload(framing: 'chunked' | 'declared'): Promise<{ answers: Answer[]; sent: number }> {
      return new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        const chunks: Buffer[] = [];
        let sent = 0;
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        // the server closes once it answered: a reset of writes after that is expected
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ answers: answersIn(Buffer.concat(chunks)), sent }));
        const head = framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${1024 * 1024 * 1024}`;
        socket.write(`POST /v1/allocations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${head}\r\n\r\n`);
        const bytes = 256 * 1024;
        const part = framing === 'chunked' ? `${bytes.toString(16)}\r\n${'x'.repeat(bytes)}\r\n` : 'x'.repeat(bytes);
        const next = () => {
          if (chunks.length > 0 || socket.destroyed) return;
          sent += bytes;
          // the next part once this one left: what was sent is what the server could read
          socket.write(part, () => setImmediate(next));
        };
        next();
      });
    }

    it('answers an endless chunked upload with 413 and Connection: close once it read the bound in bytes', async () => {
      const { answers, sent } = await endlessUpload('chunked');
      expectTooLarge(answers[0]);
      expect(answers[0].headers.connection).toBe('close');
      expect(sent).toBeGreaterThan(OVERSIZED_BODY_DRAIN.bytes);
      // and not much more: what the two sockets' buffers held when it answered
      expect(sent).toBeLessThan(2 * OVERSIZED_BODY_DRAIN.bytes);
    });

    it('answers a declared length beyond the bound with 413 and Connection: close before reading to the bound', async () => {
      const { answers, sent } = await endlessUpload('declared');
      expectTooLarge(answers[0]);
      expect(answers[0].headers.connection).toBe('close');
      expect(sent).toBeLessThan(OVERSIZED_BODY_DRAIN.bytes);
    });

    it('answers a slow endless upload with 413 before the request timeout (not 503), and closes while it goes on sending', async () => {
      const { answers } = await new Promise<{ answers: Answer[] }>((resolve) => {
        // a client that never shuts its side: only the server's bound ends the connection
        const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(drip);
          resolve({ answers: answersIn(Buffer.concat(chunks)) });
        });
        // 1 MiB and a byte at once crosses the limit; then 1 KiB every 50 ms would never end
        const big = 1024 * 1024 + 1;
        socket.write(
          'POST /v1/allocations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
            `${big.toString(16)}\r\n${'x'.repeat(big)}\r\n`,
        );
        const drip = setInterval(() => socket.write(`400\r\n${'x'.repeat(1024)}\r\n`), 50);
      });
      expectTooLarge(answers[0]);
      expect(answers[0].headers.connection).toBe('close');
    });
  });
});
