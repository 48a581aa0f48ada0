import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppLogger } from './core/logging/logging.module';
import { ApiModule } from './api.module';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { configureHttpApp } from './core/http/configure-http-app';
import { prepareDatabase } from './core/database/prepare-database';

async function bootstrap(): Promise<void> {
  const config = bootstrapConfig();
  if (config.database.migrateOnStart) await prepareDatabase(config);

  const app = await NestFactory.create<NestExpressApplication>(ApiModule.forRoot(config), {
    bufferLogs: true,
    bodyParser: false,
    // Idle keep-alive connections are closed at shutdown instead of holding it open.
    forceCloseConnections: true,
  });
  app.useLogger(app.get(AppLogger));
  configureHttpApp(app, config);

  // Nest closes the server on SIGTERM/SIGINT and waits for in-flight requests; past the grace period, exit anyway.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), config.http.shutdownGraceSeconds * 1000).unref());
  }

  const server = await app.listen(config.http.port, config.http.host);
  // Keep-alive connections must not outlive a load balancer's idle timeout, or requests race the close.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  app.get(AppLogger).log(`API listening on http://${config.http.host}:${config.http.port}/api/`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
