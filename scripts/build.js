#!/usr/bin/env node
/**
 * `node scripts/build.js`: bundles the apps into dist/ (see webpack.config.js), builds the web UI into
 * dist/ui (apps/ui/vite.config.mts) and the CNI plugin into dist/cni/ipledger-ipam (esbuild).
 * `--if-changed`: only when a source is newer than the last build (what `npm start` runs), so a
 * start after `npm ci` (whose `prepare` built) or after an unchanged restart skips the build.
 */
const { chmodSync, existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const INPUTS = ['apps', 'libs', 'tsconfig.json', 'webpack.config.js', 'package-lock.json'];

function newestMtime(file) {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(file).map((name) => newestMtime(path.join(file, name))));
}

function upToDate() {
  if (!existsSync(STAMP)) return false;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.every((input) => newestMtime(path.join(ROOT, input)) <= built);
}

if (process.argv.includes('--if-changed') && upToDate()) process.exit(0);

const started = Date.now();

/** The server apps: one webpack bundle an entry point (webpack.config.js). */
function buildApps() {
  const webpack = require('webpack');
  return new Promise((resolve, reject) =>
    webpack(require(path.join(ROOT, 'webpack.config.js')), (err, stats) => {
      if (err || stats.hasErrors()) return reject(new Error(String(err ?? stats.toString('errors-only'))));
      if (stats.hasWarnings()) console.warn(stats.toString('errors-warnings'));
      chmodSync(path.join(ROOT, 'dist', 'cli.js'), 0o755); // the `ipledger` bin
      resolve();
    }),
  );
}

/** The web UI (apps/ui) into dist/ui, with Vite (an ES module: Node 20.19+ requires it). */
async function buildUi() {
  const { build } = require('vite');
  await build({ configFile: path.join(ROOT, 'apps/ui/vite.config.mts'), logLevel: 'warn' });
}

/** The CNI plugin: one self-contained executable (no Nest, no pg) that kubelet starts for every pod. */
async function buildCni() {
  const outfile = path.join(ROOT, 'dist/cni/ipledger-ipam');
  await require('esbuild').build({
    entryPoints: [path.join(ROOT, 'apps/cni/src/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
}

buildApps()
  .then(buildUi)
  .then(buildCni)
  .then(() => {
    writeFileSync(STAMP, new Date().toISOString());
    console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  })
  .catch((err) => {
    console.error(err.message ?? err);
    process.exit(1);
  });
