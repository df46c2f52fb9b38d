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

/** IPAM_LOG_FORMAT: json (the default, one object a line for a log collector) or text (for a terminal). */
export function logFormat(env: NodeJS.ProcessEnv = process.env): LogFormat {
  const format = env.IPAM_LOG_FORMAT || 'json';
  if (format !== 'json' && format !== 'text') throw new Error(`IPAM_LOG_FORMAT "${format}" must be json or text`);
  return format;
}

/** Text fields of a line (a message, an error's stack) may quote a URL with its password: never written as given. */
const redactFields = (fields: LogFields): LogFields =>
  Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? redactSecrets(value) : value]));

/** One event, one line: fields that are undefined are left out, credentials in text are redacted. */
export function formatLogLine(format: LogFormat, level: LogLevel, raw: string, given: LogFields = {}, time = new Date()): string {
  const message = redactSecrets(raw);
  const fields = redactFields(given);
  if (format === 'json') return JSON.stringify({ level, time: time.toISOString(), message, ...fields });
  const { context, ...rest } = fields;
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const extra = Object.entries(rest)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => ` ${key}=${text(value)}`)
    .join('');
  return `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${context ? `[${text(context)}] ` : ''}${message}${extra}`;
}

export interface LogOptions {
  format: LogFormat;
  /** fields every line carries, read at each line (the API's request id and actor) */
  ambient?: () => LogFields | undefined;
  /** where lines go; by default warnings and errors to stderr, the rest to stdout */
  write?: (line: string, level: LogLevel) => void;
}

const writeToConsole = (line: string, level: LogLevel) =>
  (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);

export function createLog({ format, ambient, write = writeToConsole }: LogOptions, fields: LogFields = {}): Log {
  const emit = (level: LogLevel) => (message: string, extra?: LogFields) =>
    write(formatLogLine(format, level, message, { ...fields, ...ambient?.(), ...extra }), level);
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
