import { INestApplication, Type } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { Writable } from 'node:stream';
import { ApiModule } from '../../src/api.module';
import { Clock } from '../../src/core/clock';
import { AppConfig } from '../../src/core/config/app-config';
import { configureHttpApp } from '../../src/core/http/configure-http-app';
import { AppLogger, LOG_SETTINGS, logSettings } from '../../src/core/logging/logging.module';
import { testConfig } from './test-environment';

export interface TestAppOptions {
  config?: AppConfig;
  /** Extra controllers a suite needs to exercise the plumbing (never part of the real app). */
  controllers?: Type[];
  /** A clock the test controls, for anything that expires. */
  clock?: Clock;
  /** Where the app's JSON log lines go (the app logs at config.log.level); none: not logged. */
  logStream?: Writable;
}

/** Boots the real API module (real Postgres and Redis) exactly as main.ts configures it. */
export async function createTestApp(options: TestAppOptions = {}): Promise<INestApplication> {
  const config = options.config ?? testConfig();
  const builder = Test.createTestingModule({
    imports: [ApiModule.forRoot(config)],
    controllers: options.controllers ?? [],
  });
  if (options.clock) builder.overrideProvider(Clock).useValue(options.clock);
  if (options.logStream) builder.overrideProvider(LOG_SETTINGS).useValue(logSettings(config, options.logStream));
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  if (options.logStream) app.useLogger(app.get(AppLogger));
  configureHttpApp(app, config);
  try {
    await app.init();
  } catch (error) {
    // Whatever did start (connection pools, Redis clients, queues) is closed, so a suite whose
    // app cannot start fails with the cause instead of hanging on open handles.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
