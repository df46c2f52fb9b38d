import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { exportLog, NoEventAtPositionError, type ExportChunk } from '@ipledger/event-store';
import { loadConfig } from '../config';
import { openDatabase } from '../database';
import { createPgPool } from '../infrastructure/pg-pool';
import type { CliStreams } from './cli-streams';
import { commandOptions } from './command-options';

const USAGE = 'usage: ipledger export [--from <position>] [--output <file>]';

/**
 * `ipledger export`: the log in the export format (libs/event-store/src/exported-log.ts), to a file
 * or to stdout, a page at a time and no faster than it is taken (back-pressure). A file is written
 * under `<file>.partial` and renamed when complete, so a file by the given name is a whole export.
 * The summary goes to stdout with --output, else to stderr, beside the data.
 */
export async function exportCommand(
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv,
  stdio: CliStreams,
): Promise<number> {
  const parsed = commandOptions(args, ['--from', '--output']);
  if (typeof parsed === 'string' || parsed.positional.length > 0) {
    out(`${typeof parsed === 'string' ? parsed : `unexpected ${parsed.positional[0]}`}\n${USAGE}`);
    return 2;
  }
  const { '--from': from, '--output': output } = parsed.options;
  if (from !== undefined && !/^[1-9]\d{0,15}$/.test(from)) {
    out(`--from "${from}" must be the position of an event, a whole number from 1 (GET /v1/events)`);
    return 2;
  }
  const note = output === undefined ? (line: string) => stdio.stderr.write(`${line}\n`) : out;
  const database = await openDatabase(env, () => undefined);
  const db = createPgPool(loadConfig(database.env).migrationsDatabaseUrl, { max: 1 });
  const partial = `${output}.partial`;
  try {
    const started = Date.now();
    const target = output === undefined ? stdio.stdout : createWriteStream(partial);
    const { events, bytes } = await writeAll(exportLog(db, { from }), target);
    if (output !== undefined) {
      target.end();
      await finished(target);
      await rename(partial, output);
    }
    const seconds = (Date.now() - started) / 1000;
    note(
      `exported ${events} events${from ? ` from position ${from}` : ''}, ${(bytes / 1024 / 1024).toFixed(1)} MB, ` +
        `to ${output ?? 'stdout'} in ${seconds.toFixed(2)} s, ${Math.round(events / Math.max(seconds, 0.001))} events/s, ` +
        `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    );
    return 0;
  } catch (err) {
    if (output !== undefined) await rm(partial, { force: true });
    if (!(err instanceof NoEventAtPositionError)) throw err;
    note(err.message);
    return 2;
  } finally {
    await db.end();
    await database.close();
  }
}

/** Writes every chunk, waiting for the target to drain whenever it asks to. */
async function writeAll(chunks: AsyncIterable<ExportChunk>, target: NodeJS.WritableStream): Promise<{ events: number; bytes: number }> {
  let failed: Error | undefined;
  const onError = (err: Error) => (failed ??= err);
  target.on('error', onError);
  let events = 0;
  let bytes = 0;
  try {
    for await (const chunk of chunks) {
      if (failed) throw failed;
      events += chunk.events;
      bytes += Buffer.byteLength(chunk.text);
      if (!target.write(chunk.text)) await once(target, 'drain');
    }
    // written out, not only handed over: a write's callback follows every earlier write's
    await new Promise<void>((resolve, reject) => target.write('', (err) => (err ? reject(err) : resolve())));
    if (failed) throw failed;
    return { events, bytes };
  } finally {
    target.off('error', onError);
  }
}
