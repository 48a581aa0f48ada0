import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { WorkerMetricsServer } from '../src/core/metrics/worker-metrics-server';
import { QueueName } from '../src/core/queue/queue-names';
import { BatchRegistrationProcessor } from '../src/modules/batches/batch-registration.processor';
import { SampleExportProcessor } from '../src/modules/exports/sample-export.processor';
import { WorkerModule } from '../src/worker.module';
import { serverUrls, testConfig, testDatabaseUrl, testKeyPrefix } from './support/test-environment';

const METRICS_TOKEN = 'worker-metrics-token-0123';

/**
 * The worker's start-up: every queue the API enqueues to needs exactly one processor, or the
 * worker does not start. Its own Redis prefix, so these workers never take other suites' jobs.
 */
describe('worker start-up', () => {
  const config = (overrides: Record<string, string> = {}) =>
    testConfig({ REDIS_KEY_PREFIX: `${testKeyPrefix()}-handlers`, ...overrides });

  async function startWorker(overrides: Record<string, string>): Promise<INestApplicationContext> {
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule.forRoot(config(overrides))] }).compile();
    return moduleRef.init();
  }

  /** Runs test/support/worker-with-processors.ts: exit code and output. */
  async function startWorkerProcess(processors: string[]): Promise<{ code: number | null; output: string }> {
    const root = join(__dirname, '..');
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(),
      REDIS_URL: serverUrls().redis,
      REDIS_KEY_PREFIX: `${testKeyPrefix()}-handlers`,
      JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
      DATABASE_MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'silent',
      TS_NODE_PROJECT: join(root, 'tsconfig.json'),
    };
    const script = join(__dirname, 'support', 'worker-with-processors.ts');
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', script, ...processors],
        { cwd: root, env },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number | undefined) ?? null) : 0, output: stdout + stderr }),
      );
    });
  }

  it('fails to start when a queue has no handler, or two', async () => {
    const [missing, doubled] = await Promise.all([
      startWorkerProcess([
        'BatchRegistrationProcessor',
        'DoiDeliveryProcessor',
        'LabelSheetProcessor',
        'OwnershipTransferProcessor',
        'SampleReservationProcessor',
      ]),
      startWorkerProcess([
        'BatchRegistrationProcessor',
        'SampleExportProcessor',
        'DoiDeliveryProcessor',
        'LabelSheetProcessor',
        'OwnershipTransferProcessor',
        'SampleReservationProcessor',
        'ShadowExportProcessor',
      ]),
    ]);
    expect(missing).toEqual({
      code: 1,
      output: 'Worker failed to start: Queue handlers are incomplete: queue "sample-export" has no handler.\n',
    });
    expect(doubled).toEqual({
      code: 1,
      output:
        'Worker failed to start: Queue handlers are incomplete: queue "sample-export" has 2 handlers ' +
        '(SampleExportProcessor, ShadowExportProcessor).\n',
    });
  }, 180_000);

  it('starts one configured BullMQ worker per queue and serves its metrics with the token', async () => {
    const worker = await startWorker({
      WORKER_CONCURRENCY: '3',
      WORKER_LOCK_DURATION_MS: '12000',
      WORKER_STALLED_INTERVAL_MS: '4000',
      METRICS_TOKEN,
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
    });
    try {
      for (const processor of [BatchRegistrationProcessor, SampleExportProcessor]) {
        const bull = worker.get(processor).worker;
        expect(bull.isRunning()).toBe(true);
        expect(bull.concurrency).toBe(3);
        expect(bull.opts).toMatchObject({ lockDuration: 12000, stalledInterval: 4000, maxStalledCount: 3 });
      }
      expect(worker.get(SampleExportProcessor).worker.name).toBe(QueueName.SampleExport);

      const address = worker.get(WorkerMetricsServer).address();
      expect(address).toBeDefined();
      const port = address?.port;
      const url = `http://127.0.0.1:${port}/metrics`;
      const refused = await fetch(url);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({
        message: 'Metrics need the Authorization header "Bearer <METRICS_TOKEN>".',
        errors: {},
      });
      const scraped = await fetch(url, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toContain('text/plain');
      const text = await scraped.text();
      expect(text).toContain('queue_jobs{queue="sample-export",state="waiting"} 0');
      expect(text).toContain('# TYPE queue_job_duration_seconds histogram');
      expect(text).toMatch(/^db_pool_connections_in_use \d+$/m);
    } finally {
      await worker.close();
    }
  });
});
