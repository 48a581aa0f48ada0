import { Inject, Injectable, Module, RequestMethod } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger, LoggerModule, PARAMS_PROVIDER_TOKEN, Params, PinoLogger } from 'nestjs-pino';
import type { Request } from 'express';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
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

/**
 * pino-http settings. Lines logged while serving a request carry only its id (`reqId`, the same
 * as the `X-Request-Id` header); the request's own line is `requestLogFields`. `stream` is for
 * tests that read the log.
 */
export function loggerParams(config: AppConfig, stream?: DestinationStream): Params {
  const options: Options = {
    level: config.log.level,
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? '',
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: 'reqId', responseTime: 'durationMs' },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (req, res, fields: { durationMs: number }) => requestLogFields(req, res, fields.durationMs),
    customErrorObject: (req, res, _error, fields: { durationMs: number; err: Error }) => ({
      ...requestLogFields(req, res, fields.durationMs),
      err: fields.err,
    }),
  };
  return {
    pinoHttp: stream ? [options, stream] : options,
    // Every path; spelled for Express 5's path-to-regexp (nestjs-pino's default `*` logs a warning).
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
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

/** The application logger (`app.useLogger(app.get(AppLogger))`): nestjs-pino, with start-up chatter at debug. */
@Injectable()
export class AppLogger extends Logger {
  constructor(logger: PinoLogger, @Inject(PARAMS_PROVIDER_TOKEN) params: Params) {
    super(logger, params);
  }

  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) super.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}

/** JSON logs through pino, for the API and the worker alike. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loggerParams(config),
    }),
  ],
  providers: [AppLogger],
  exports: [AppLogger],
})
export class LoggingModule {}
