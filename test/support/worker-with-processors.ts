/**
 * A worker started like src/worker.ts but with the processors named on the command line, for the
 * start-up check's tests (a handler missing or doubled). A separate process, as a real worker is:
 * a start that fails leaves connections behind, which only the process exit closes.
 */
import 'reflect-metadata';
import { WorkerHost } from '@nestjs/bullmq';
import { NestFactory } from '@nestjs/core';
import { bootstrapConfig } from '../../src/core/config/bootstrap-config';
import { QueueName } from '../../src/core/queue/queue-names';
import { ProcessorClass, QueueProcessor } from '../../src/core/queue/queue-processor';
import { BatchRegistrationProcessor } from '../../src/modules/batches/batch-registration.processor';
import { DoiDeliveryProcessor } from '../../src/modules/datacite/doi-delivery.processor';
import { SampleExportProcessor } from '../../src/modules/exports/sample-export.processor';
import { LabelSheetProcessor } from '../../src/modules/labels/label-sheet.processor';
import { OwnershipTransferProcessor } from '../../src/modules/transfers/ownership-transfer.processor';
import { SampleReservationProcessor } from '../../src/modules/reservations/sample-reservation.processor';
import { WorkerModule } from '../../src/worker.module';

/** A second handler for the export queue, as a copy-paste mistake would add. */
@QueueProcessor(QueueName.SampleExport)
class ShadowExportProcessor extends WorkerHost {
  async process(): Promise<void> {}
}

const AVAILABLE: Record<string, ProcessorClass> = {
  BatchRegistrationProcessor,
  SampleExportProcessor,
  DoiDeliveryProcessor,
  LabelSheetProcessor,
  OwnershipTransferProcessor,
  SampleReservationProcessor,
  ShadowExportProcessor,
};

async function main(): Promise<void> {
  const processors = process.argv.slice(2).map((name) => AVAILABLE[name]);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(bootstrapConfig(), processors), {
    logger: false,
  });
  process.stdout.write('Worker started\n');
  await app.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`Worker failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
