/**
 * `npm run bench:batch`: upload-to-completed time of template workbooks of 5,000 and 50,000 rows,
 * and the worker's peak memory. Runs the compiled API and worker as separate processes against a
 * database of its own (sr_bench_batch, recreated each run) on the local PostgreSQL and Redis.
 *
 * Targets (2-core machine): 5,000 rows <= 5 s, 50,000 rows <= 40 s, worker peak RSS <= 400 MB.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import * as XLSX from 'xlsx';
import { CliModule } from '../../src/cli/cli.module';
import { loadAppConfig } from '../../src/core/config/app-config';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { TokenService } from '../../src/modules/auth/token.service';
import { ApiProcess, freePort } from '../lib/api-process';
import { dropDatabase } from '../lib/bench-database';
import { formatNumber, markdownTable } from '../lib/markdown';
import { deleteKeysWithPrefix } from '../lib/redis-keys';

const ROOT = join(__dirname, '..', '..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sr_bench_batch';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const KEY_PREFIX = 'sr-bench-batch';
const SIZES = (process.env.BENCH_BATCH_SIZES ?? '5000,50000').split(',').map(Number);
const TARGETS: Record<number, number> = { 5000: 5, 50000: 40 };
const RSS_TARGET_MB = 400;

const ENV = {
  NODE_ENV: 'production',
  DATABASE_URL,
  REDIS_URL,
  REDIS_KEY_PREFIX: KEY_PREFIX,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  LOG_LEVEL: 'warn',
  DATABASE_MIGRATE_ON_START: 'false',
  UPLOAD_LIMIT: '200mb',
  WORKER_CONCURRENCY: '1',
};

const HEADERS = [
  'Object Type',
  'Sample Name',
  'Other Name(s)',
  'General Material Type',
  'Sample Description',
  'Latitude (WGS84)',
  'Longitude (WGS84)',
  'Elevation',
  'Elevation Unit',
  'Sampling start date',
  'Country',
  'Locality',
  'Collector',
  'Platform Name',
  'Current Archive',
];

function workbook(rows: number, tag: string, code: string): Buffer {
  const grid: (string | number)[][] = [HEADERS];
  const types = ['Core', 'Individual sample', 'Thin section', 'Dredge'];
  for (let i = 0; i < rows; i++) {
    grid.push([
      types[i % types.length],
      `${tag}-${i + 1}`,
      `field ${i}; lab ${i % 97}`,
      'Rock',
      `Synthetic sample ${i} for the batch benchmark`,
      -60 + (i % 12000) / 100,
      -170 + (i % 34000) / 100,
      (i % 3000) - 500,
      'meters',
      `2024-${String((i % 12) + 1).padStart(2, '0')}-15`,
      ['United States', 'Canada', 'France', 'Japan'][i % 4],
      `Locality ${i % 500}`,
      ['Marie Tharp', 'Bruce Heezen', 'Inge Lehmann'][i % 3],
      ['R/V Atlantis', 'JOIDES Resolution'][i % 2],
      'Lamont-Doherty Core Repository',
    ]);
  }
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['registry_code', code]]), 'Metadata');
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(grid), 'Samples');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

let workerOutput = '';

async function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'worker.js')], {
    env: { ...process.env, ...ENV, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      workerOutput = (workerOutput + chunk.toString()).slice(-20_000);
      if (output.includes('Worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}):\n${output}`)));
  });
  return child;
}

async function main(): Promise<void> {
  const config = loadAppConfig({ ...ENV, NODE_ENV: 'production' });
  await dropDatabase(DATABASE_URL);
  await deleteKeysWithPrefix(REDIS_URL, KEY_PREFIX);
  await prepareDatabase(config);

  const context = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'] });
  const accounts = context.get(AccountsService);
  const user = await accounts.createUser({
    email: 'bench@example.org',
    password: 'bench-password',
    name: 'Bench User',
    uploadPermission: true,
  });
  await context.get(AccountsService).createRegistryCode('IEBCH', { email: user.email });
  const pair = await context.get(TokenService).issuePair(user.id, 'developer');
  await context.close();

  const port = await freePort();
  const api = await ApiProcess.start({
    entry: join(ROOT, 'dist', 'src', 'main.js'),
    env: ENV,
    port,
    readyPath: '/api/health/ready/',
  });
  const worker = await startWorker();
  const results: string[][] = [];
  try {
    for (const size of SIZES) {
      const file = workbook(size, `bench${size}`, 'IEBCH');
      const form = new FormData();
      form.append('file', new Blob([file]), `bench-${size}.xlsx`);
      const started = Date.now();
      const response = await fetch(`${api.baseUrl}/api/batches/upload/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${pair.access}` },
        body: form,
      });
      if (response.status !== 202) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
      const { data } = (await response.json()) as { data: { job_id: string } };
      const accepted = Date.now() - started;
      let job: { status: string; error_message: string | null; result: { sample_count?: number } | null };
      for (;;) {
        const poll = await fetch(`${api.baseUrl}/api/jobs/${data.job_id}/`, {
          headers: { Authorization: `Bearer ${pair.access}` },
        });
        job = ((await poll.json()) as { data: typeof job }).data;
        if (job.status === 'completed' || job.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const seconds = (Date.now() - started) / 1000;
      if (job.status !== 'completed') {
        throw new Error(
          `batch of ${size} failed: ${job.error_message}\n--- worker log ---\n${workerOutput.slice(-4000)}`,
        );
      }
      const rss = peakRssMb(worker.pid as number);
      const target = TARGETS[size];
      results.push([
        formatNumber(size),
        `${formatNumber(file.length / 1024 / 1024, 1)} MB`,
        `${formatNumber(accepted)} ms`,
        `${formatNumber(seconds, 1)} s`,
        target ? `≤ ${target} s` : '—',
        target ? (seconds <= target ? 'yes' : 'no') : '—',
        `${formatNumber(rss)} MB`,
        rss <= RSS_TARGET_MB ? 'yes' : 'no',
        formatNumber(job.result?.sample_count ?? 0),
      ]);
      process.stdout.write(`${size} rows: ${seconds.toFixed(1)} s, worker peak RSS ${rss.toFixed(0)} MB\n`);
    }
  } finally {
    worker.kill('SIGTERM');
    await api.stop();
  }
  const table = markdownTable(
    [
      'rows',
      'file',
      'upload answered (202)',
      'upload → completed',
      'target',
      'met',
      'worker peak RSS',
      '≤ 400 MB',
      'samples',
    ],
    results,
  );
  process.stdout.write(`\n${table}\n`);
  writeFileSync(join(__dirname, 'results.md'), `${table}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
