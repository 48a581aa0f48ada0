import { DynamicModule, Module, Type } from '@nestjs/common';
import { AppConfig } from './core/config/app-config';
import { CoreModule } from './core/core.module';
import { TableStatisticsKeeper } from './core/database/table-statistics';
import { FEATURE_MODULES } from './feature-modules';
import { JobRecoveryService } from './modules/background-jobs/job-recovery.service';
import { BatchRegistrationProcessor } from './modules/batches/batch-registration.processor';
import { SampleExportProcessor } from './modules/exports/sample-export.processor';

/** Processors run only here: the API enqueues, the worker consumes. */
export const PROCESSORS: Type[] = [BatchRegistrationProcessor, SampleExportProcessor];

/**
 * Worker-only services: the sweep that re-enqueues jobs Redis lost and deletes expired files, and
 * the keeper of planner statistics.
 */
const WORKER_SERVICES: Type[] = [JobRecoveryService, TableStatisticsKeeper];

@Module({})
export class WorkerModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config), ...FEATURE_MODULES],
      providers: [...PROCESSORS, ...WORKER_SERVICES],
    };
  }
}
