/**
 * The rule that keeps a rolling update safe (docs/kubernetes.md, "Upgrades"): while old and new
 * API replicas run side by side on the migrated schema, the previous release's SQL must still run.
 * So a migration only adds: it never drops, renames or retypes what exists, never makes an existing
 * column stricter (NOT NULL, no default), and never adds a NOT NULL column the old INSERTs leave out.
 * A contraction (removing what no running release uses any more, a release later) says so in a
 * `-- contract: <why nothing running uses it>` comment right above the statement.
 */
export interface Violation {
  file: string;
  statement: string;
  why: string;
}

interface Statement {
  text: string;
  /** a `-- contract:` comment precedes it */
  contract: boolean;
}

/** Statements of a SQL script, comments and string bodies blanked; DO blocks' bodies are statements too. */
export function statements(sql: string): Statement[] {
  const found: Statement[] = [];
  let text = '';
  let contract = false;
  let i = 0;
  const flush = () => {
    const statement = text.replace(/\s+/g, ' ').trim();
    if (statement) found.push({ text: statement, contract });
    text = '';
    contract = false;
  };
  while (i < sql.length) {
    if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      const comment = sql.slice(i, end < 0 ? sql.length : end);
      if (/^--\s*contract:/i.test(comment) && !text.trim()) contract = true;
      i = end < 0 ? sql.length : end;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      text += ' ';
    } else if (sql[i] === "'") {
      const end = sql.indexOf("'", i + 1);
      i = end < 0 ? sql.length : end + 1;
      text += "''";
    } else if (sql[i] === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))![0];
      const end = sql.indexOf(tag, i + tag.length);
      const body = sql.slice(i + tag.length, end < 0 ? sql.length : end);
      // a DO block runs its body now: its statements count; a function's body runs when called
      if (/\bDO\s*$/i.test(text)) for (const inner of statements(body)) found.push({ ...inner, contract: inner.contract || contract });
      i = end < 0 ? sql.length : end + tag.length;
      text += ' $body$ ';
    } else if (sql[i] === ';') {
      flush();
      i++;
    } else {
      text += sql[i++];
    }
  }
  flush();
  // plpgsql's block words before a statement
  return found.map((s) => ({ ...s, text: s.text.replace(/^((BEGIN|THEN|ELSE|LOOP|EXCEPTION)\s+)+/i, '') }));
}

const NAME = String.raw`("[^"]+"|[\w.]+)`;

/** Splits ALTER TABLE's actions at top-level commas. */
function actions(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

const bare = (name: string) =>
  name
    .replace(/"/g, '')
    .replace(/^public\./i, '')
    .toLowerCase();

/** What in one migration would break the previous release's SQL. */
export function violations(file: string, sql: string): Violation[] {
  const found: Violation[] = [];
  const all = statements(sql);
  // objects this very migration creates may be changed at will: no release uses them yet
  const created = new Set(
    all.flatMap((s) => {
      const match = new RegExp(
        String.raw`^CREATE (?:OR REPLACE )?(?:UNIQUE )?(?:TABLE|VIEW|MATERIALIZED VIEW|FUNCTION|TYPE|SEQUENCE|INDEX|DOMAIN)(?: CONCURRENTLY)?(?: IF NOT EXISTS)? ${NAME}`,
        'i',
      ).exec(s.text);
      return match ? [bare(match[1])] : [];
    }),
  );
  const refuse = (statement: Statement, why: string) => {
    if (!statement.contract) found.push({ file, statement: statement.text, why });
  };
  for (const statement of all) {
    const text = statement.text;
    const drop = new RegExp(
      String.raw`^DROP (TABLE|VIEW|MATERIALIZED VIEW|FUNCTION|PROCEDURE|TYPE|SEQUENCE|SCHEMA|INDEX|DOMAIN)(?: CONCURRENTLY)?(?: IF EXISTS)? ${NAME}`,
      'i',
    ).exec(text);
    if (drop && !created.has(bare(drop[2]))) refuse(statement, `drops ${drop[1].toLowerCase()} ${bare(drop[2])}`);
    const rename = new RegExp(
      String.raw`^ALTER (TABLE|VIEW|MATERIALIZED VIEW|SEQUENCE|TYPE|FUNCTION|INDEX|SCHEMA|DOMAIN) (?:IF EXISTS )?${NAME}.*\b(RENAME\b.*)$`,
      'i',
    ).exec(text);
    if (rename) refuse(statement, `${rename[1].toLowerCase()} ${bare(rename[2])}: ${rename[3]}`);
    const alter = new RegExp(String.raw`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?${NAME} (.*)$`, 'i').exec(text);
    if (!alter || created.has(bare(alter[1]))) continue;
    const table = bare(alter[1]);
    for (const action of actions(alter[2])) {
      if (/^DROP\b/i.test(action)) refuse(statement, `${table}: ${action}`);
      else if (/^ALTER (COLUMN )?\S+ (SET DATA )?TYPE\b/i.test(action)) refuse(statement, `${table}: changes a column's type (${action})`);
      else if (/^ALTER (COLUMN )?\S+ SET NOT NULL\b/i.test(action)) refuse(statement, `${table}: makes an existing column NOT NULL`);
      else if (/^ALTER (COLUMN )?\S+ DROP DEFAULT\b/i.test(action)) refuse(statement, `${table}: drops a default older INSERTs rely on`);
      else if (/^ADD (COLUMN )?(IF NOT EXISTS )?\S+ .*\bNOT NULL\b/i.test(action) && !/\b(DEFAULT|GENERATED)\b/i.test(action))
        refuse(statement, `${table}: adds a NOT NULL column without a default, which older INSERTs leave out`);
    }
  }
  return found;
}
