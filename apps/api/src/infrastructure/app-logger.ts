import type { LoggerService } from '@nestjs/common';
import { createLog, logFormat, type Log, type LogFields, type LogLevel, type LogOptions } from '@ipledger/runtime';
import { currentRequestContext } from '../http/request-context';

/**
 * Nest's logger interface over the project's log lines: every line of the API, Nest's own
 * included, is one JSON object (or text with IPAM_LOG_FORMAT=text), and a line written while a
 * request is served carries its request id and actor.
 */
export class AppLogger implements LoggerService {
  private readonly out: Log;

  constructor(options: Partial<Pick<LogOptions, 'format' | 'write'>> = {}) {
    this.out = createLog({
      format: options.format ?? logFormat(),
      write: options.write,
      ambient: () => {
        const context = currentRequestContext();
        return context && { requestId: context.requestId, actor: context.actor };
      },
    });
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
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
