import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppLogger } from './core/logging/logging.module';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { prepareDatabase } from './core/database/prepare-database';
import { lowerWorkerPriority } from './core/queue/worker-priority';
import { collectWorkerGarbageSooner } from './modules/batches/import/worker-heap';
import { WorkerModule } from './worker.module';

/**
 * The worker: the same module graph as the API plus the queue processors, and no HTTP port.
 * On SIGTERM/SIGINT the processors stop taking jobs and finish the ones in flight (BullMQ's
 * `worker.close()`); a job interrupted harder than that is returned to the queue as stalled.
 */
async function bootstrap(): Promise<void> {
  // A batch's garbage is collected at 1.3× the live heap, not up to 4×: its peak memory (issue 23 §8).
  collectWorkerGarbageSooner();
  const config = bootstrapConfig();
  if (config.database.migrateOnStart) await prepareDatabase(config);

  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { bufferLogs: true });
  app.useLogger(app.get(AppLogger));
  app.enableShutdownHooks();
  await app.init();
  const priority = lowerWorkerPriority(config.worker.niceness);
  const logger = app.get(AppLogger);
  if (priority.refused)
    logger.warn(`WORKER_NICE=${priority.niceness} not applied to every thread: ${priority.refused}`, 'Bootstrap');
  logger.log(`Worker started (concurrency ${config.worker.concurrency}, niceness ${priority.niceness})`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `Worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
