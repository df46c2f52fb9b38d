/**
 * npm run bench:request-path — the JavaScript cost of one allocation request's layers, each timed
 * alone in this process (µs per call, median of BENCH_REPEATS runs of BENCH_CALLS calls): the
 * validation pipe over a CNI plugin's body (class-validator's and the compiled schema), the access log line (formatted and redacted, written to
 * a sink), the security headers (helmet's middleware built once, and built per request as
 * @fastify/helmet did), a request context entered with AsyncLocalStorage, and JSON for the answer. Figures for
 * docs/benchmarks.md "Where the time goes at 1 client"; they leave out I/O, which bench:baseline
 * measures.
 */
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import { CreateAllocationDto } from '../apps/api/src/allocations/dto/create-allocation.dto';
import { AppLogger } from '../apps/api/src/infrastructure/app-logger';
import { ValidationPipe } from '@nestjs/common';
import { securityHeaders } from '../apps/api/src/http/security-headers';
import { validationPipe, VALIDATION_OPTIONS } from '../apps/api/src/http/validation.pipe';
import { allocationBody, median } from './support';

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);

/** µs per call of `work`, median of REPEATS runs (the first run, a warm-up, left out). */
async function perCall(work: (i: number) => unknown): Promise<number> {
  const runs: number[] = [];
  for (let r = 0; r <= REPEATS; r++) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await work(i);
    if (r > 0) runs.push(((performance.now() - started) * 1000) / CALLS);
  }
  return median(runs);
}

async function hundredPromises(): Promise<void> {
  for (let i = 0; i < 100; i++) await new Promise<void>((resolve) => resolve());
}

async function main(): Promise<void> {
  const body = allocationBody('9f1c2e0a7b3d:eth0', 'b0');
  const metadata = { type: 'body' as const, metatype: CreateAllocationDto, data: undefined };
  const classValidator = new ValidationPipe(VALIDATION_OPTIONS);
  const logger = new AppLogger({ write: () => undefined });
  const store = new AsyncLocalStorage<{ requestId: string }>();
  const answer = {
    items: [{ handle: body.handle, ip: '10.100.0.7', prefixLength: 19, cidr: '10.100.0.0/19', pool: 'b0', node: 'bench-node' }],
  };
  const headerOptions = securityHeaders(false);
  const setHeaders = helmet(headerOptions);
  // helmet sets and removes headers on node:http's response; a sink stands in for it
  const response = { setHeader: () => undefined, removeHeader: () => undefined } as unknown as ServerResponse;
  const request = {} as IncomingMessage;
  const next = () => undefined;
  const rows: Array<[string, number]> = [
    ['an empty await (the loop itself)', await perCall(() => undefined)],
    ['validation: class-transformer + class-validator', await perCall(() => classValidator.transform({ ...body }, metadata))],
    ["validation: the route's pipe (its compiled schema)", await perCall(() => validationPipe.transform({ ...body }, metadata))],
    [
      'access log line (format, redact, write to a sink)',
      await perCall((i) =>
        logger.line('info', 'request completed', {
          context: 'http',
          requestId: `r${i}`,
          method: 'POST',
          path: '/v1/allocations',
          status: 201,
        }),
      ),
    ],
    ['security headers: helmet built once (the API now)', await perCall(() => setHeaders(request, response, next))],
    ['security headers: helmet built per request (@fastify/helmet)', await perCall(() => helmet(headerOptions)(request, response, next))],
    [
      'request context entered (AsyncLocalStorage.run, one await inside)',
      await perCall((i) => store.run({ requestId: `r${i}` }, async () => {})),
    ],
    // once any AsyncLocalStorage has run, every promise of the process pays its init hook
    ['100 promises awaited, AsyncLocalStorage enabled', await perCall(hundredPromises)],
    ['100 promises awaited, AsyncLocalStorage disabled', (store.disable(), await perCall(hundredPromises))],
    [
      'JSON of the request and of the answer (parse + stringify)',
      await perCall(() => JSON.stringify(answer) + JSON.stringify(JSON.parse(JSON.stringify(body)))),
    ],
  ];
  for (const [what, us] of rows) console.log(`${us.toFixed(2).padStart(8)} µs  ${what}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
