import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG } from './app-config.token';
import { AppConfig, loadAppConfig } from './app-config';

/**
 * Provides the typed AppConfig under the APP_CONFIG token. Entry points have already loaded `.env`
 * and validated the environment (so a bad value stops start-up with one line); tests pass their own.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppConfigModule,
      providers: [{ provide: APP_CONFIG, useFactory: () => config ?? loadAppConfig(process.env) }],
      exports: [APP_CONFIG],
    };
  }
}
