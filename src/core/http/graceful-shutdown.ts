import { INestApplication, LoggerService } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { AppConfig } from '../config/app-config';
import { DrainState } from '../health/drain-state';

/** How often idle keep-alive connections are closed while the server drains. */
const IDLE_SWEEP_MS = 250;

/**
 * While draining, every response asks the client to close its connection, so keep-alive clients
 * reconnect (to another replica) instead of holding this process open.
 */
export function closeConnectionsWhileDraining(drain: DrainState) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if (drain.draining) res.setHeader('Connection', 'close');
    next();
  };
}

/**
 * A deploy's SIGTERM (or Ctrl-C) without cutting requests:
 * 1. readiness answers 503 at once, and requests keep being served for SHUTDOWN_DRAIN_SECONDS,
 *    so the load balancer notices before the port closes;
 * 2. then the port closes (new connections are refused) and requests in flight finish;
 * 3. then Nest's shutdown hooks run (queues, PostgreSQL, Redis) and the process exits 0.
 * Whatever is still running SHUTDOWN_GRACE_SECONDS after the signal is cut and the exit code is 1.
 */
export function installGracefulShutdown(
  app: INestApplication,
  server: Server,
  config: AppConfig,
  logger: LoggerService,
): void {
  const drain = app.get(DrainState);
  const graceMs = config.http.shutdownGraceSeconds * 1000;
  const drainMs = Math.min(config.http.shutdownDrainSeconds * 1000, graceMs);

  const shutdown = (signal: NodeJS.Signals) => {
    if (drain.draining) return;
    drain.start();
    logger.log(
      `${signal}: draining (readiness 503); closing the port in ${drainMs / 1000} s, exiting within ${graceMs / 1000} s`,
      'Shutdown',
    );
    setTimeout(() => {
      logger.warn?.(`Grace period over: cutting the connections still open`, 'Shutdown');
      server.closeAllConnections();
      process.exit(1);
    }, graceMs);

    setTimeout(() => {
      const idleSweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      server.close(() => {
        clearInterval(idleSweep);
        void app
          .close()
          .then(() => {
            logger.log('Requests finished; stopped cleanly', 'Shutdown');
            process.exit(0);
          })
          .catch((error: unknown) => {
            logger.error(`Shutdown hooks failed: ${(error as Error).message}`, undefined, 'Shutdown');
            process.exit(1);
          });
      });
      // Logged once the listening socket is closed, not before: a probe that reads it may rely on it.
      logger.log('Port closed: no new connections; waiting for requests in flight', 'Shutdown');
    }, drainMs);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown(signal));
}
