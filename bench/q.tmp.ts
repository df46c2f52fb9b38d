import { loadConfig } from '../apps/api/src/config';
import { createApp } from '../apps/api/src/create-app';
import { seedPools } from '../test/support/seed-pools';
import { freshDatabase, startApi, call } from './support';
(async () => {
  const db = await freshDatabase('q');
  const app = await createApp(loadConfig({ DATABASE_URL: db.url }), { logger: false });
  await app.init(); await seedPools(app, 1000); await app.close();
  const api = await startApi(db.url);
  const t = async (l: string, f: () => Promise<unknown>, n = 500) => { const s: number[] = []; for (let i = 0; i < n; i++) { const a = performance.now(); await f(); s.push(performance.now() - a); } s.sort((a, b) => a - b); console.log(l, s[n >> 1].toFixed(2)); };
  for (let r = 0; r < 2; r++) {
  await t('healthz', () => call(api.base, 'GET', '/healthz'));
  await t('readyz', () => call(api.base, 'GET', '/readyz'));
  await t('node', () => call(api.base, 'GET', '/v1/nodes/node-1'));
  await t('pool', () => call(api.base, 'GET', '/v1/pools/pool-000001'));
  await t('pools limit 1', () => call(api.base, 'GET', '/v1/pools?limit=1'));
  await t('pools limit 20', () => call(api.base, 'GET', '/v1/pools?limit=20'));
  await t('pools sel', () => call(api.base, 'GET', '/v1/pools?labelSelector=pool-group%3Dgroup-1'));
  await t('nodepools', () => call(api.base, 'GET', '/v1/nodes/node-1/pools?matchLabel=pool-group'));
  }
  await api.stop(); await db.drop();
})();
