/**
 * `node --expose-gc -r ts-node/register/transpile-only bench/batch/memory.ts [rows]`: one batch of
 * generated rows (50,000 by default) run in this process through BatchRegistrationService, as the
 * worker runs it, with process.memoryUsage() sampled every 10 ms: where the batch's peak resident
 * memory is (V8's heap, used or merely reserved, or outside it) and what is still held once it is
 * collected. A probe for work on the worker's memory, not a benchmark of record (bench/batch/run.ts
 * is). Uses a database of its own on the local PostgreSQL (TEST_DATABASE_URL), dropped at the end.
 */
import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { getHeapStatistics } from 'node:v8';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { BackgroundJobsService } from '../../src/modules/background-jobs/background-jobs.service';
import { BatchRegistrationService } from '../../src/modules/batches/batch-registration.service';
import { BatchesService } from '../../src/modules/batches/batches.service';
import { AuthenticatedUser } from '../../src/core/auth/authenticated-user';
import { createRegistrant } from '../../test/support/auth';
import { createMediumContext } from '../../test/support/medium';
import { RUN_ID_VARIABLE, newRunId, testConfig, testDatabaseUrl } from '../../test/support/test-environment';
import { dropDatabase } from '../lib/bench-database';
import { collectWorkerGarbageSooner } from '../../src/modules/batches/import/worker-heap';
import { workbook } from './workbook';

const ROWS = Number(process.argv[2] ?? 50_000);
const MB = 1024 * 1024;
const log = (line: string) => process.stdout.write(`${line}\n`);

type Sample = ReturnType<typeof process.memoryUsage>;
const fields: (keyof Sample)[] = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'];
const show = (sample: Partial<Sample>) =>
  fields.map((field) => `${field} ${((sample[field] ?? 0) / MB).toFixed(0)}`).join(', ');
const collect = () => (global as { gc?: () => void }).gc?.();

async function main(): Promise<void> {
  // As the worker starts (src/worker.ts); PROBE_V8_DEFAULTS=1 leaves V8's own heap growing, to compare.
  if (process.env.PROBE_V8_DEFAULTS !== '1') collectWorkerGarbageSooner();
  process.env[RUN_ID_VARIABLE] ??= newRunId();
  const config = testConfig({ LOG_LEVEL: 'warn', ...pick('BATCH_VALIDATION_THREADS', 'BATCH_THREADS_FROM_ROWS') });
  await prepareDatabase(config);
  let app: INestApplicationContext | undefined;
  try {
    app = await createMediumContext({ config });
    const registrant = await createRegistrant(app);
    const user = (await app.get(AccountsService).actingUser(registrant.userId)) as AuthenticatedUser;
    const warm = async (rows: number, tag: string) => {
      const file = workbook(rows, tag, registrant.code);
      const queued = await app!
        .get(BatchesService)
        .upload({ originalname: `${tag}.xlsx`, buffer: file, size: file.length }, {}, user);
      return queued.job_id;
    };
    // A small batch first, as the bench does: code paths compiled, pools started.
    await app.get(BatchRegistrationService).run(await warm(500, 'warm'));
    const jobId = await warm(ROWS, 'probe');
    collect();
    const before = process.memoryUsage();
    log(`before: ${show(before)} (MB)`);
    const peak: Partial<Sample> = {};
    const timer = setInterval(() => {
      const now = process.memoryUsage();
      for (const field of fields) peak[field] = Math.max(peak[field] ?? 0, now[field]);
    }, 10);
    const began = performance.now();
    const cpuBefore = process.cpuUsage();
    await app.get(BatchRegistrationService).run(jobId);
    const seconds = (performance.now() - began) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(timer);
    const job = await app.get(BackgroundJobsService).find(jobId);
    log(
      `${ROWS} rows: ${job?.status} in ${seconds.toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (all threads) ${job?.errorMessage ?? ''}`,
    );
    log(
      `peak:   ${show(peak)} (MB); old space limit now ${(getHeapStatistics().total_available_size / MB).toFixed(0)} MB free`,
    );
    log(`after:  ${show(process.memoryUsage())} (MB)`);
    collect();
    log(`gc'd:   ${show(process.memoryUsage())} (MB)`);
  } finally {
    await app?.close();
    await dropDatabase(testDatabaseUrl());
  }
}

function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.filter((name) => process.env[name]).map((name) => [name, process.env[name] as string]),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
