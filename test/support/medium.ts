import { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Clock } from '../../src/core/clock';
import { AppConfig } from '../../src/core/config/app-config';
import { CoreModule } from '../../src/core/core.module';
import { FEATURE_MODULES } from '../../src/feature-modules';
import { testConfig } from './test-environment';

export interface MediumOptions {
  config?: AppConfig;
  /** A clock the test controls, for anything that expires. */
  clock?: Clock;
}

/**
 * The medium layer's subject: the application's module graph — services and repositories on the
 * run's real PostgreSQL and Redis — with no HTTP server and no queue consumers. Tests call services
 * directly and read what was stored. Close it in afterAll.
 */
export async function createMediumContext(options: MediumOptions = {}): Promise<INestApplicationContext> {
  const builder = Test.createTestingModule({
    imports: [CoreModule.forRoot(options.config ?? testConfig()), ...FEATURE_MODULES],
  });
  if (options.clock) builder.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await builder.compile();
  try {
    return await moduleRef.init();
  } catch (error) {
    await moduleRef.close().catch(() => undefined);
    throw error;
  }
}
