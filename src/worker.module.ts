import { DynamicModule, Module, Type } from '@nestjs/common';
import { AppConfig } from './core/config/app-config';
import { CoreModule } from './core/core.module';
import { FEATURE_MODULES } from './feature-modules';

/** Processors run only here: the API enqueues, the worker consumes. */
export const PROCESSORS: Type[] = [];

@Module({})
export class WorkerModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config), ...FEATURE_MODULES],
      providers: [...PROCESSORS],
    };
  }
}
