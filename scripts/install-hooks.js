/**
 * `npm ci` / `npm install` (prepare) points git at the repository's hooks (.githooks). It does
 * nothing in CI, outside a git checkout (a tarball, the Docker build), or in a linked worktree,
 * whose configuration is its repository's and so every other worktree's too.
 */
const { execFileSync } = require('node:child_process');

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

if (process.env.CI) process.exit(0);
try {
  if (git('rev-parse', '--git-dir') !== git('rev-parse', '--git-common-dir')) process.exit(0);
  git('config', 'core.hooksPath', '.githooks');
} catch {
  // not a git checkout, or no git: nothing to install
}
