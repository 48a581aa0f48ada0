import {
  Inject,
  Injectable,
  LoggerService,
  MiddlewareConsumer,
  Module,
  NestModule,
  RequestMethod,
} from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import pino, { DestinationStream, Logger, LevelWithSilentOrString } from 'pino';
import { AuthenticatedUser } from '../auth/authenticated-user';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { routeTemplate } from '../http/route-template';
import { redactUrl } from './redact-url';

/** The one line logged per request: what an operator greps for, and nothing else (no headers). */
export function requestLogFields(req: IncomingMessage, res: ServerResponse, durationMs: number) {
  const request = req as Request & { user?: AuthenticatedUser };
  return {
    method: req.method,
    route: routeTemplate(request),
    url: redactUrl(request.originalUrl ?? req.url ?? ''),
    status: res.statusCode,
    durationMs,
    userId: request.user?.userId ?? null,
    ip: request.ip ?? req.socket.remoteAddress ?? null,
  };
}

/** The level and the destination of the JSON log (a stream for tests that read it; stdout otherwise). */
export interface LogSettings {
  level: LevelWithSilentOrString;
  stream?: DestinationStream;
  /** Standard output written asynchronously (production); otherwise each line is written before the call returns. */
  asyncStdout?: boolean;
}

export const LOG_SETTINGS = Symbol('LOG_SETTINGS');
/** The process's one pino logger; nothing makes a child of it per request. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

export function logSettings(config: AppConfig, stream?: DestinationStream): LogSettings {
  return { level: config.log.level, stream, asyncStdout: config.nodeEnv === 'production' };
}

/** The id of the request being served (`X-Request-Id`), added to every line logged while serving it. */
const requestIds = new AsyncLocalStorage<string>();

/**
 * JSON lines through pino. In production standard output is written asynchronously (pino flushes
 * it on exit), so a request never waits for a write to the log collector's pipe. Elsewhere it is
 * synchronous: test processes (jest workers) exit at once, without a flush on exit to wait for.
 */
export function createRootLogger(settings: LogSettings): Logger {
  return pino(
    {
      level: settings.level,
      // A new object each time: pino merges the line's own fields into it.
      mixin: () => {
        const reqId = requestIds.getStore();
        return reqId === undefined ? {} : { reqId };
      },
      serializers: { err: pino.stdSerializers.err },
    },
    settings.stream ?? pino.destination({ dest: 1, sync: !settings.asyncStdout }),
  );
}

/**
 * Logs each request's line when its response finishes (or the connection closes first): `info`,
 * `warn` from 400, `error` from 500 or on a failure, with `requestLogFields` and the request id.
 * Runs the rest of the request with its id known to every line it logs.
 */
export function requestLogMiddleware(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = Date.now();
    const reqId = (req as Request & { id?: string }).id ?? '';
    const done = (error?: Error) => {
      res.removeListener('close', done);
      res.removeListener('finish', done);
      res.removeListener('error', done);
      const failed = error ?? (res.statusCode >= 500 ? new Error(`failed with status code ${res.statusCode}`) : null);
      const level = failed ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const fields = { reqId, ...requestLogFields(req, res, Date.now() - start) };
      if (failed) logger[level]({ ...fields, err: failed }, 'request failed');
      else logger[level](fields, 'request completed');
    };
    res.on('close', done);
    res.on('finish', done);
    res.on('error', done);
    requestIds.run(reqId, next);
  };
}

/** Nest's start-up chatter (one line per module and per route): debug, so `info` start-up stays short. */
const START_UP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * The application logger (`app.useLogger(app.get(AppLogger))`): Nest's `(message, ...params, context)`
 * calls as pino lines with a `context` field; start-up chatter at debug.
 */
@Injectable()
export class AppLogger implements LoggerService {
  constructor(@Inject(ROOT_LOGGER) private readonly logger: Logger) {}

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.call('trace', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.call('debug', message, optionalParams);
  }

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    this.call(
      typeof context === 'string' && START_UP_CONTEXTS.has(context) ? 'debug' : 'info',
      message,
      optionalParams,
    );
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.call('warn', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.call('error', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.call('fatal', message, optionalParams);
  }

  /** The context is the last parameter; an Error or an object message becomes the line's fields. */
  private call(level: Level, message: unknown, optionalParams: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    let params: unknown[] = [];
    if (optionalParams.length) {
      fields.context = optionalParams[optionalParams.length - 1];
      params = optionalParams.slice(0, -1);
    }
    if (message instanceof Error) {
      fields.err = message;
      this.logger[level](fields, ...(params as []));
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level](Object.assign(fields, message), ...(params as []));
    } else if (
      level === 'error' &&
      typeof params[0] === 'string' &&
      params.length === 1 &&
      /\n\s*at /.test(params[0])
    ) {
      // Nest's exception handlers call error(message, stack, context).
      const error = new Error(String(message));
      error.stack = params[0];
      this.logger.error({ ...fields, err: error });
    } else {
      this.logger[level](fields, String(message), ...(params as []));
    }
  }
}

/** JSON logs through pino, for the API and the worker alike; the request line on every HTTP route. */
@Module({
  providers: [
    { provide: LOG_SETTINGS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => logSettings(config) },
    { provide: ROOT_LOGGER, inject: [LOG_SETTINGS], useFactory: createRootLogger },
    AppLogger,
  ],
  exports: [AppLogger],
})
export class LoggingModule implements NestModule {
  constructor(@Inject(ROOT_LOGGER) private readonly logger: Logger) {}

  configure(consumer: MiddlewareConsumer): void {
    // Every path; spelled for Express 5's path-to-regexp.
    consumer.apply(requestLogMiddleware(this.logger)).forRoutes({ path: '{*splat}', method: RequestMethod.ALL });
  }
}
