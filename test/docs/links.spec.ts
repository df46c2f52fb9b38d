import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Every Markdown file of the repository (dependencies, build output and git's own aside). */
function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', '.git', 'coverage', 'test-artifacts', '.ipledger'].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The YAML files of deploy/: their comments name docs and files too. */
function deployFiles(dir = join(ROOT, 'deploy')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? deployFiles(path) : entry.name.endsWith('.yaml') ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])));
}

/** A repository path: one of the top folders, then a path (a glob or a placeholder is no path). */
const REPO_PATH = /^(?:apps|libs|deploy|docs|test|scripts|bench|migrations|\.ci|\.githooks)\/[\w./-]*$/;

/**
 * The docs point at what exists: every relative link of a Markdown file resolves to a file, and
 * its #anchor to a heading there; every repository path a Markdown file names in backticks, or a
 * deploy/ YAML comment names, exists.
 */
describe('links and paths in the docs', () => {
  const files = markdownFiles();

  it('finds the README and the docs', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'docs/kubernetes.md', 'docs/cni.md']));
  });

  it('every relative link resolves, anchors included', () => {
    const broken = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1])
        .filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link))
        .filter((link) => {
          const [path, hash] = link.split('#');
          const target = path ? join(dirname(file), decodeURIComponent(path)) : file;
          if (!existsSync(target)) return true;
          return hash !== undefined && target.endsWith('.md') && !anchorsOf(target).has(hash);
        })
        .map((link) => `${relative(ROOT, file)}: ${link}`);
    });
    expect(broken).toEqual([]);
  });

  it('every repository path named in backticks, or in a deploy/ comment, exists', () => {
    const named = [
      ...files.flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/`([^`\s]+)`/g)].map((m) => ({ file, path: m[1].replace(/[#:].*$/, '') })),
      ),
      ...deployFiles().flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /^\s*#/.test(line))
          .flatMap((line) => [...line.matchAll(/[\w./-]+/g)].map((m) => ({ file, path: m[0].replace(/[.,:]+$/, '') }))),
      ),
    ].filter(({ path }) => REPO_PATH.test(path));
    expect(named.length).toBeGreaterThan(50);
    const missing = named.filter(({ path }) => !existsSync(join(ROOT, path))).map(({ file, path }) => `${relative(ROOT, file)}: ${path}`);
    expect(missing).toEqual([]);
  });
});
