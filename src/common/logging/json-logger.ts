import { AsyncLocalStorage } from 'node:async_hooks';
import { LoggerService } from '@nestjs/common';

/** Carries the request id to every log line written while a request is handled. */
export const requestScope = new AsyncLocalStorage<{ requestId: string }>();

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

/**
 * Structured logs: one JSON object per line on stdout, with time, level, context, message and
 * the request id of the request being handled (if any).
 */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly level: LogLevel = 'info',
    private readonly write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  ) {}

  private emit(level: Exclude<LogLevel, 'silent'>, message: unknown, context?: string, extra?: Record<string, unknown>): void {
    if (LEVELS[level] < LEVELS[this.level]) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level };
    if (context) entry.context = context;
    const requestId = requestScope.getStore()?.requestId;
    if (requestId) entry.requestId = requestId;
    if (message instanceof Error) {
      entry.msg = message.message;
      entry.err = { name: message.name, stack: message.stack };
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(entry, message);
    } else {
      entry.msg = String(message);
    }
    if (extra) Object.assign(entry, extra);
    this.write(JSON.stringify(entry));
  }

  /** Nest calls log/error/warn with optional trailing context (and a stack for error). */
  private split(params: unknown[]): { context?: string; stack?: string } {
    const strings = params.filter((p): p is string => typeof p === 'string');
    if (strings.length >= 2) return { stack: strings[0], context: strings[strings.length - 1] };
    return { context: strings[0] };
  }

  log(message: unknown, ...params: unknown[]): void {
    this.emit('info', message, this.split(params).context);
  }
  error(message: unknown, ...params: unknown[]): void {
    const { context, stack } = this.split(params);
    this.emit('error', message, context, stack ? { stack } : undefined);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.emit('warn', message, this.split(params).context);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.emit('debug', message, this.split(params).context);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.emit('debug', message, this.split(params).context);
  }
  /** Logs a structured event: `logger.event('info', 'http', { method, path, status })`. */
  event(level: Exclude<LogLevel, 'silent'>, context: string, fields: Record<string, unknown>): void {
    this.emit(level, fields, context);
  }
}
