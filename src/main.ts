import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppLogger } from './core/logging/logging.module';
import { ApiModule } from './api.module';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { configureHttpApp } from './core/http/configure-http-app';
import { prepareDatabase } from './core/database/prepare-database';
import { DrainState } from './core/health/drain-state';
import { closeConnectionsWhileDraining, installGracefulShutdown } from './core/http/graceful-shutdown';

async function bootstrap(): Promise<void> {
  const config = bootstrapConfig();
  if (config.database.migrateOnStart) await prepareDatabase(config);

  // No forceCloseConnections: a deploy must let requests in flight finish (graceful-shutdown.ts).
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), {
    bufferLogs: true,
    bodyParser: false,
  });
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  if (config.http.trustProxyWarning) logger.warn(config.http.trustProxyWarning, 'Bootstrap');
  app.use(closeConnectionsWhileDraining(app.get(DrainState)));
  configureHttpApp(app, config);

  const server = await app.listen(config.http.port, config.http.host);
  // Keep-alive connections must not outlive a load balancer's idle timeout, or requests race the close.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  installGracefulShutdown(app, server, config, logger);
  logger.log(`API listening on http://${config.http.host}:${config.http.port}/api/`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
