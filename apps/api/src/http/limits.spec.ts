import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEXT_KINDS } from './limits';

const OPERATIONS = join(__dirname, '../../../../docs/operations.md');
const BEGIN = '<!-- text kinds: TEXT_KINDS of apps/api/src/http/limits.ts -->';
const END = '<!-- end of text kinds -->';

/** The table docs/operations.md must show between its markers, made from the one table in the code. */
function kindsTable(): string {
  const rows = Object.entries(TEXT_KINDS).map(([kind, { max, what }]) => `| \`${kind}\` | ${max.toLocaleString('en-US')} | ${what} |`);
  return ['| kind | at most (characters) | what |', '| --- | --- | --- |', ...rows].join('\n');
}

describe('the limits on input in docs/operations.md', () => {
  it('show the code’s one table of text kinds and their limits, exactly', () => {
    const doc = readFileSync(OPERATIONS, 'utf8');
    const shown = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END)).trim();
    // on a difference, the expected table is printed: paste it between the markers
    expect(shown).toBe(kindsTable());
  });
});
