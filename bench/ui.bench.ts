/**
 * npm run bench:ui — the web UI's bundle size, and how long the pools page takes to show 10,000
 * pools in a real headless Chromium: from navigation until the table holds them all and draws the
 * rows in sight (the page follows `continue` through ten pages of 1,000), next to the first page of
 * 100 and of 1,000.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '../apps/api/src/config';
import { createApp } from '../apps/api/src/create-app';
import { launchChromium } from '../test/support/chromium';
import { seedPools } from '../test/support/seed-pools';
import { freshDatabase, median, ms, startApi } from './support';

const POOLS = Number(process.env.BENCH_POOLS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const UI = join(__dirname, '../dist/ui');

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(6)} KiB`;

function bundleSize(): void {
  const files = ['index.html', ...readdirSync(join(UI, 'assets')).map((name) => join('assets', name))];
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(join(UI, file));
    const zipped = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += zipped;
    console.log(`  ${file.padEnd(32)} ${kib(bytes.length)} raw ${kib(zipped)} gzip`);
  }
  console.log(`  ${'total'.padEnd(32)} ${kib(raw)} raw ${kib(gzip)} gzip`);
}

async function main(): Promise<void> {
  console.log('bundle (dist/ui):');
  bundleSize();
  const db = await freshDatabase('ui');
  const seeder = await createApp(loadConfig({ DATABASE_URL: db.url, IPAM_KUBERNETES_CONSUMER: 'off' }), { logger: false });
  await seeder.init();
  await seedPools(seeder, POOLS);
  await seeder.close();
  const api = await startApi(db.url, { IPAM_KUBERNETES_CONSUMER: 'off' });
  const browser = await launchChromium();
  try {
    /** ms from navigation start (the page's own clock) until the table holds `rows` pools and draws the first of them */
    const show = async (limit: string, rows: number): Promise<number> => {
      const page = await browser.context.newPage();
      await page.goto(`${api.base}/ui/#/pools?limit=${limit}`);
      const at = await page.waitForFunction(
        `document.querySelector('table.pools[data-loaded="yes"][data-count="${rows}"] tbody tr[data-pool]') && performance.now()`,
        undefined,
        { timeout: 120_000, polling: 'raf' },
      );
      const elapsed = Number(await at.jsonValue());
      await page.close();
      return elapsed;
    };
    const cases = [
      { label: 'first page of 100', limit: '100', rows: Math.min(100, POOLS) },
      { label: 'first page of 1,000', limit: '1000', rows: Math.min(1000, POOLS) },
      { label: `all ${POOLS.toLocaleString('en-US')} pools (limit=all)`, limit: 'all', rows: POOLS },
    ];
    await show('100', Math.min(100, POOLS)); // warm up the API's JIT and prepared statements, and the browser's cache
    const samples = cases.map(() => [] as number[]);
    // interleaved, so drift on the shared machine touches every case alike
    for (let run = 0; run < RUNS; run++) for (const [i, c] of cases.entries()) samples[i].push(await show(c.limit, c.rows));
    console.log(
      `\npools page in headless Chromium, ${RUNS} runs each, medians (navigation start to the loaded table drawn; long lists draw only the rows in sight):`,
    );
    for (const [i, c] of cases.entries())
      console.log(
        `  ${c.label.padEnd(34)} ${ms(median(samples[i])).padStart(12)}   (min ${ms(Math.min(...samples[i]))}, max ${ms(Math.max(...samples[i]))})`,
      );
    console.log(`  ratio all / first page of 100: ${(median(samples[2]) / median(samples[0])).toFixed(1)}`);
  } finally {
    await browser.close();
    await api.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
