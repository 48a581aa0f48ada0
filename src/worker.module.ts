import { DynamicModule, Module, Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AppConfig } from './core/config/app-config';
import { CoreModule } from './core/core.module';
import { TableStatisticsKeeper } from './core/database/table-statistics';
import { WorkerMetricsServer } from './core/metrics/worker-metrics-server';
import { QueueHandlers } from './core/queue/queue-handlers';
import { ProcessorClass, processorProvider } from './core/queue/queue-processor';
import { FEATURE_MODULES } from './feature-modules';
import { JobRecoveryService } from './modules/background-jobs/job-recovery.service';
import { BatchRegistrationProcessor } from './modules/batches/batch-registration.processor';
import { DoiDeliveryProcessor } from './modules/datacite/doi-delivery.processor';
import { SampleExportProcessor } from './modules/exports/sample-export.processor';
import { LabelSheetProcessor } from './modules/labels/label-sheet.processor';
import { OwnershipTransferProcessor } from './modules/transfers/ownership-transfer.processor';
import { SampleReservationProcessor } from './modules/reservations/sample-reservation.processor';

/** Processors run only here: the API enqueues, the worker consumes. One per queue (QueueHandlers checks). */
export const PROCESSORS: ProcessorClass[] = [
  BatchRegistrationProcessor,
  SampleExportProcessor,
  DoiDeliveryProcessor,
  LabelSheetProcessor,
  OwnershipTransferProcessor,
  SampleReservationProcessor,
];

/**
 * Worker-only services: the sweep that re-enqueues jobs Redis lost and deletes expired files, the
 * keeper of planner statistics, and the metrics listener on METRICS_PORT.
 */
const WORKER_SERVICES: Type[] = [JobRecoveryService, TableStatisticsKeeper, WorkerMetricsServer];

@Module({})
export class WorkerModule {
  /** `processors` is for tests that start a worker with a handler missing or doubled. */
  static forRoot(config: AppConfig, processors: ProcessorClass[] = PROCESSORS): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config), DiscoveryModule, ...FEATURE_MODULES],
      providers: [
        ...processors.map((processor) => processorProvider(processor, config)),
        QueueHandlers,
        ...WORKER_SERVICES,
      ],
    };
  }
}
