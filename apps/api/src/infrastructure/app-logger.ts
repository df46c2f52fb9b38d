import type { LoggerService } from '@nestjs/common';
import { createLog, logFormat, logLevel, type Log, type LogFields, type LogLevel, type LogOptions } from '@ipledger/runtime';
import { currentRequestContext } from './current-request';

/**
 * Nest's own start-up detail (each module loaded, each route mapped: some sixty lines), written at
 * debug: at info a start says what the operator acts on. Nest's "successfully started" comes before
 * the port is bound, so it is debug too; main.ts says where the API listens once it does.
 */
const NEST_DETAIL = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);
const isNestDetail = (context: unknown, message: unknown) =>
  typeof context === 'string' &&
  (NEST_DETAIL.has(context) || (context === 'NestApplication' && message === 'Nest application successfully started'));

/**
 * Nest's logger interface over the project's log lines: every line of the API, Nest's own
 * included, is one JSON object (or text with IPAM_LOG_FORMAT=text), and a line written while a
 * request is served carries its request id and actor.
 */
export class AppLogger implements LoggerService {
  private readonly out: Log;

  constructor(options: Partial<Pick<LogOptions, 'format' | 'write' | 'level'>> = {}) {
    this.out = createLog({
      format: options.format ?? logFormat(),
      level: options.level ?? logLevel(),
      write: options.write,
      ambient: () => {
        const context = currentRequestContext();
        return context && { requestId: context.requestId, actor: context.actor };
      },
    });
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write(isNestDetail(params.at(-1), message) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  /** A line with fields of its own (the access log's method, path, status). */
  line(level: LogLevel, message: string, fields: LogFields): void {
    this.out[level](message, fields);
  }

  /** Nest passes the context (the logger's name) last, and for errors a stack before it. */
  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    const fields: LogFields = {};
    if (params.length && typeof params[params.length - 1] === 'string') fields.context = params.pop();
    const stack = params.find((param): param is string => typeof param === 'string' && param.includes('\n'));
    if (message instanceof Error) {
      fields.stack = message.stack;
      this.out[level](message.message, fields);
      return;
    }
    if (stack) fields.stack = stack;
    this.out[level](typeof message === 'string' ? message : JSON.stringify(message), fields);
  }
}
