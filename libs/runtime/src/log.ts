import { pino, type DestinationStream } from 'pino';
import { redactSecrets } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'text';
export type LogFields = Record<string, unknown>;

export interface Log {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * IPAM_LOG_FORMAT: json (one object a line, for a log collector) or text (for a terminal); unset,
 * text when stdout is a terminal (someone reads it) and json otherwise (a pipe, a container's log).
 */
export function logFormat(env: NodeJS.ProcessEnv = process.env, terminal = process.stdout.isTTY === true): LogFormat {
  const format = env.IPAM_LOG_FORMAT || (terminal ? 'text' : 'json');
  if (format !== 'json' && format !== 'text') throw new Error(`IPAM_LOG_FORMAT "${format}" must be json or text`);
  return format;
}

/** IPAM_LOG_LEVEL: the least level written, info by default (debug adds Nest's start-up detail, the routes it mapped). */
export function logLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const level = env.IPAM_LOG_LEVEL || 'info';
  if (!LEVELS.includes(level as LogLevel)) throw new Error(`IPAM_LOG_LEVEL "${level}" must be one of ${LEVELS.join(', ')}`);
  return level as LogLevel;
}

/** Text fields of a line (a message, an error's stack) may quote a URL with its password: never written as given. */
const redactFields = (fields: LogFields): LogFields => {
  const redacted: LogFields = {};
  for (const key in fields) {
    const value = fields[key];
    redacted[key] = typeof value === 'string' ? redactSecrets(value) : value;
  }
  return redacted;
};

/** A line for a terminal (IPAM_LOG_FORMAT=text): fields that are undefined are left out, credentials redacted. */
export function formatTextLine(level: LogLevel, raw: string, given: LogFields = {}, time = new Date()): string {
  const { context, ...rest } = redactFields(given);
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const extra = Object.entries(rest)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}=${text(value)}`)
    .join('');
  return `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${context ? `[${text(context)}] ` : ''}${redactSecrets(raw)}${extra}`;
}

export interface LogOptions {
  format: LogFormat;
  /** lines below it are not written; info by default */
  level?: LogLevel;
  /** fields every line carries, read at each line (the API's request id and actor) */
  ambient?: () => LogFields | undefined;
  /** where lines go (without their newline); by default warnings and errors to stderr, the rest to stdout */
  write?: (line: string, level: LogLevel) => void;
}

const writeToConsole = (line: string, level: LogLevel) =>
  (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);

let consoleStreams: Array<{ level: LogLevel; stream: DestinationStream }> | undefined;

/**
 * stdout through pino's buffered destination: a line is handed to a write already under way
 * rather than written at once (one write a request, synchronous on a pipe, was most of a log
 * line's cost), and what is buffered is flushed when the process exits. Warnings and errors go
 * to stderr at once: they may be the last words before a crash. One pair for the process.
 */
function toConsole(): Array<{ level: LogLevel; stream: DestinationStream }> {
  consoleStreams ??= [
    { level: 'debug', stream: pino.destination({ dest: 1, sync: false }) },
    { level: 'warn', stream: pino.destination({ dest: 2, sync: true }) },
  ];
  return consoleStreams;
}

/**
 * JSON lines through pino, Fastify's own logger: `{"level":"info","time":"<ISO>", ...fields,
 * "message":...}`, the fields this project's lines always had (no pid, no hostname, level by name).
 */
function jsonLog({ ambient, write, level = 'info' }: LogOptions, fields: LogFields): Log {
  const streams = write
    ? LEVELS.map((level) => ({ level, stream: { write: (line: string) => write(line.slice(0, -1), level) } }))
    : toConsole();
  const logger = pino(
    {
      level,
      base: null,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: redactFields },
      mixin: () => ({ ...fields, ...ambient?.() }),
    },
    // each line to the one stream of its level
    pino.multistream(streams, { dedupe: true }),
  );
  const emit = (level: LogLevel) => (message: string, extra?: LogFields) => logger[level](extra ?? {}, redactSecrets(message));
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export function createLog(options: LogOptions, fields: LogFields = {}): Log {
  if (options.format === 'json') return jsonLog(options, fields);
  const write = options.write ?? writeToConsole;
  const least = LEVELS.indexOf(options.level ?? 'info');
  const emit = (level: LogLevel) => (message: string, extra?: LogFields) => {
    if (LEVELS.indexOf(level) >= least) write(formatTextLine(level, message, { ...fields, ...options.ambient?.(), ...extra }), level);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
