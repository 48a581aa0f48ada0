import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import * as prettier from 'prettier';
import { loadAppConfig } from '../../src/core/config/app-config';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { ApiProcess, freePort } from '../lib/api-process';
import { CpuShare, startCpuWatch, waitForQuietMachine } from '../lib/cpu-monitor';
import { databaseExists, dropDatabase } from '../lib/bench-database';
import { formatNumber, markdownTable } from '../lib/markdown';
import { deleteKeysWithPrefix } from '../lib/redis-keys';
import { generateSamples } from '../samples/generate';
import { SAMPLES_PER_CODE, ensureRegistrant, openBenchContext } from '../samples/setup';
import { BenchWorker } from './worker-process';

/*
 * `npm run bench:export`: a database of its own (sr_bench_export) with BENCH_EXPORT_SAMPLES
 * (default 100,000) synthetic samples of one registrant, the compiled worker and API started as
 * separate processes, then exports of a tenth of the samples (q=core) and of all of them, as CSV
 * and as xlsx, one after the other. For each: the time from POST /api/samples/export/ to the job's
 * completion, the file's size, and the worker's peak resident memory during that export
 * (/proc/<pid>/status VmHWM, reset before each export; VmRSS is also sampled every 50 ms).
 * Prints a Markdown report and writes it to bench/export/results.md.
 */

const log = (line: string) => process.stdout.write(`${line}\n`);
const MiB = 1024 * 1024;
/** The V8 heap limit of the worker in the last two runs: a page loop that needed more would crash it. */
const CAPPED_HEAP_MB = 128;

interface Settings {
  samples: number;
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  jwtSecret: string;
  keepDatabase: boolean;
  reuseDatabase: boolean;
  /** Longest wait for a quiet machine before each export (0: do not wait). */
  quietTimeoutSeconds: number;
}

function settingsFrom(env: NodeJS.ProcessEnv): Settings {
  const samples = Number(env.BENCH_EXPORT_SAMPLES ?? 100_000);
  if (!Number.isInteger(samples) || samples < 1000) throw new Error('BENCH_EXPORT_SAMPLES must be an integer ≥ 1000.');
  return {
    samples,
    databaseUrl: env.BENCH_EXPORT_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sr_bench_export',
    redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    redisKeyPrefix: 'bench-export',
    jwtSecret: 'bench-only-secret-never-used-in-a-deployment-0123456789',
    keepDatabase: env.BENCH_KEEP !== '0',
    reuseDatabase: env.BENCH_REUSE === '1',
    quietTimeoutSeconds: Number(env.BENCH_QUIET_TIMEOUT ?? 300),
  };
}

/** The environment of the API and worker processes under test. */
function processEnvironment(settings: Settings): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: settings.databaseUrl,
    DATABASE_MIGRATE_ON_START: 'false',
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: settings.redisKeyPrefix,
    JWT_SECRET: settings.jwtSecret,
    HOST: '127.0.0.1',
    // A build outside the checkout (BENCH_DIST) still finds the checkout's packages.
    NODE_PATH: join(resolve(__dirname, '..', '..'), 'node_modules'),
    AUTH_RATE_LIMIT_PER_IP: '100000',
    AUTH_RATE_LIMIT_PER_ACCOUNT: '100000',
  };
}

/** Cleanup steps, run last-registered first, on success, failure and Ctrl-C alike. */
const cleanups: { label: string; run: () => Promise<unknown> }[] = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (let step = cleanups.pop(); step; step = cleanups.pop()) {
      try {
        await step.run();
      } catch (error) {
        process.stderr.write(`cleanup (${step.label}) failed: ${(error as Error).message}\n`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the processes and cleaning up\n`);
    void cleanUp().then(() => process.exit(130));
  });
}

interface Scenario {
  label: string;
  format: 'csv' | 'xlsx';
  body: Record<string, string>;
}

interface Measurement {
  scenario: Scenario;
  samples: number;
  seconds: number;
  workerSeconds: number;
  bytes: number;
  idleRss: number;
  peakRss: number;
  peakSource: 'VmHWM' | 'VmRSS samples';
  cpu?: CpuShare;
}

interface JobBody {
  status: string;
  error_message: string | null;
  started_at: string | null;
  finished_at: string | null;
  result: { sample_count: number } | null;
}

async function api<T>(baseUrl: string, token: string, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
  });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface Environment {
  baseUrl: string;
  token: string;
  worker: BenchWorker;
  quietTimeoutSeconds: number;
  /** The processes under test: this bench, the API, the worker and their PostgreSQL backends. */
  ownPids: () => Promise<number[]>;
}

async function measure(env: Environment, scenario: Scenario): Promise<Measurement> {
  const { baseUrl, token, worker } = env;
  if (env.quietTimeoutSeconds) {
    await waitForQuietMachine({ maxBusyPercent: 10, windowMs: 2000, timeoutMs: env.quietTimeoutSeconds * 1000 });
  } else {
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  const idleRss = worker.memory('VmRSS');
  const hwm = worker.resetPeak();
  let sampledPeak = idleRss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, worker.memory('VmRSS'));
  }, 50);
  const watch = startCpuWatch(env.ownPids);
  const started = performance.now();
  try {
    const queued = await api<{ data: { job_id: string } }>(baseUrl, token, '/api/samples/export/', {
      method: 'POST',
      body: JSON.stringify({ ...scenario.body, format: scenario.format }),
    });
    const jobId = queued.data.job_id;
    let job: JobBody;
    for (;;) {
      job = (await api<{ data: JobBody }>(baseUrl, token, `/api/jobs/${jobId}/`)).data;
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const cpu = await watch.stop();
    if (job.status !== 'completed') throw new Error(`The export failed: ${job.error_message}`);
    const download = await fetch(`${baseUrl}/api/jobs/${jobId}/download/`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const bytes = (await download.arrayBuffer()).byteLength;
    const peak = hwm ? worker.memory('VmHWM') : sampledPeak;
    return {
      scenario,
      samples: job.result?.sample_count ?? 0,
      seconds,
      workerSeconds: (Date.parse(job.finished_at ?? '') - Date.parse(job.started_at ?? '')) / 1000,
      bytes,
      idleRss,
      peakRss: Math.max(peak, sampledPeak),
      peakSource: hwm ? 'VmHWM' : 'VmRSS samples',
      cpu,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function machine(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ version: string }>("SELECT current_setting('server_version') AS version");
  const cores = cpus();
  return (
    `${cores.length} × ${cores[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; ` +
    `PostgreSQL ${rows[0].version}; Node.js ${process.version}`
  );
}

function codeVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'src', 'migrations').split('\n').filter(Boolean).length;
    return `commit ${git('rev-parse', '--short', 'HEAD')}${changed ? ` with ${changed} uncommitted changes in src/ and migrations/` : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function report(settings: Settings, machineLine: string, version: string, results: Measurement[]): string {
  const rows = results.map((m) => [
    m.scenario.label,
    m.scenario.format,
    formatNumber(m.samples),
    formatNumber(m.seconds, 1),
    formatNumber(m.workerSeconds, 1),
    formatNumber(m.samples / m.workerSeconds),
    formatNumber(m.bytes / MiB, 1),
    formatNumber(m.idleRss / MiB),
    formatNumber(m.peakRss / MiB),
    formatNumber((m.peakRss - m.idleRss) / MiB),
    m.cpu ? `${m.cpu.foreign.toFixed(0)}%` : 'n/a',
  ]);
  return [
    '# Export benchmark results',
    '',
    `Written by \`npm run bench:export\` on ${new Date().toISOString()}.`,
    '',
    `- Data: ${formatNumber(settings.samples)} synthetic samples of one registrant (bench/samples/generate.ts); ` +
      'the exports use the default scope (personal), so "all" is every sample, drafts included.',
    `- Machine: ${machineLine}.`,
    `- Code: ${version}.`,
    '- One worker process (`node dist/src/worker.js`, NODE_ENV=production, WORKER_CONCURRENCY=1) and one API ' +
      'process; exports run one after the other. Time: POST /api/samples/export/ until GET /api/jobs/{id}/ says ' +
      'completed (polled every 100 ms); worker: the job’s finished_at − started_at.',
    `- Peak RSS: the worker’s /proc VmHWM, reset before each export (${results[0]?.peakSource ?? 'VmHWM'}); ` +
      'idle: VmRSS before it. The file is built on disk page by page (1,000 samples a page); the finished file is ' +
      'then read into memory once for the INSERT into the files table (bytea): that buffer, and the copy the ' +
      'PostgreSQL client makes of it, are outside the V8 heap. The last two rows run on a worker restarted with ' +
      `\`--max-old-space-size=${CAPPED_HEAP_MB}\`: the exports completing there show the page loop needs a bounded ` +
      'heap whatever the export size (much of the RSS in the rows above is garbage V8 had no reason to collect yet).',
    '- Other CPU: the share of the whole machine used during the export by anything but the bench, the API, the ' +
      `worker and their PostgreSQL backends. Each export first waits up to ${settings.quietTimeoutSeconds} s for ` +
      'a quiet machine; figures measured beside more than ~10% other CPU are disturbed.',
    '',
    markdownTable(
      [
        'Export',
        'Format',
        'Samples',
        'Time (s)',
        'Worker (s)',
        'Samples/s',
        'File (MiB)',
        'Idle RSS (MiB)',
        'Peak RSS (MiB)',
        'Growth (MiB)',
        'Other CPU',
      ],
      rows,
    ),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const settings = settingsFrom(process.env);
  const root = resolve(__dirname, '..', '..');
  // BENCH_DIST: measure a build kept elsewhere (e.g. `tsc -p tsconfig.build.json --outDir /tmp/sr`), so a
  // run does not replace the dist/ that other processes on the machine are using.
  const dist = resolve(process.env.BENCH_DIST ?? join(root, 'dist'));
  const apiEntry = join(dist, 'src', 'main.js');
  const workerEntry = join(dist, 'src', 'worker.js');
  for (const entry of [apiEntry, workerEntry]) {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm run bench:export does).`);
  }
  const version = codeVersion();
  const env = processEnvironment(settings);
  const config = loadAppConfig({ ...env, DATABASE_POOL_SIZE: '4', PASSWORD_HASH_ROUNDS: '4', LOG_LEVEL: 'error' });

  cleanups.push({
    label: 'database',
    run: async () => {
      if (!settings.keepDatabase) await dropDatabase(settings.databaseUrl);
    },
  });
  cleanups.push({
    label: 'redis keys',
    run: () => deleteKeysWithPrefix(settings.redisUrl, `${settings.redisKeyPrefix}:`),
  });

  const reuse = settings.reuseDatabase && (await databaseExists(settings.databaseUrl));
  const databaseName = new URL(settings.databaseUrl).pathname.slice(1);
  if (reuse) {
    log(`Reusing ${databaseName} (BENCH_REUSE=1)`);
  } else {
    log(`Creating ${databaseName}: migrations and seed data`);
    await dropDatabase(settings.databaseUrl);
    await prepareDatabase(config);
  }
  let context: INestApplicationContext | undefined = await openBenchContext(config);
  cleanups.push({ label: 'Nest context', run: async () => context?.close() });
  const registrant = await ensureRegistrant(context, settings.samples);
  await context.close();
  context = undefined;
  if (!reuse) {
    log(`Generating ${formatNumber(settings.samples)} samples`);
    const generated = await generateSamples(settings.databaseUrl, {
      count: settings.samples,
      ownerUserId: registrant.userId,
      registryCodes: registrant.codes,
      perCode: SAMPLES_PER_CODE,
      log,
    });
    log(`Generated in ${generated.seconds.toFixed(0)} s`);
  }

  const pool = new Pool({ connectionString: settings.databaseUrl, max: 2, application_name: 'bench-export' });
  cleanups.push({ label: 'pg pool', run: () => pool.end() });
  const machineLine = await machine(pool);
  const tenth = Number(
    (await pool.query<{ n: string }>("SELECT count(*) AS n FROM sample WHERE lower(name) LIKE '%core%'")).rows[0].n,
  );
  log(machineLine);

  log('Starting the worker and the API');
  const workerEnv = { ...env, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '1' };
  const worker = await BenchWorker.start(workerEntry, workerEnv);
  cleanups.push({ label: 'worker process', run: () => worker.stop() });
  const port = await freePort();
  const apiProcess = await ApiProcess.start({
    entry: apiEntry,
    env: { ...env, LOG_LEVEL: 'warn' },
    port,
    readyPath: '/api/health/ready/',
  });
  cleanups.push({ label: 'API process', run: () => apiProcess.stop() });

  const scenarios: Scenario[] = [
    { label: `q=core (${formatNumber(tenth)})`, format: 'csv', body: { q: 'core' } },
    { label: 'all', format: 'csv', body: {} },
    { label: `q=core (${formatNumber(tenth)})`, format: 'xlsx', body: { q: 'core' } },
    { label: 'all', format: 'xlsx', body: {} },
  ];
  const environment: Environment = {
    baseUrl: apiProcess.baseUrl,
    token: registrant.accessToken,
    worker,
    quietTimeoutSeconds: settings.quietTimeoutSeconds,
    ownPids: async () => {
      const { rows } = await pool.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
      );
      return [
        process.pid,
        environment.worker.pid,
        ...(apiProcess.pid ? [apiProcess.pid] : []),
        ...rows.map((row) => row.pid),
      ];
    },
  };
  const results: Measurement[] = [];
  const run = async (scenario: Scenario) => {
    log(`Exporting ${scenario.label} as ${scenario.format}`);
    const result = await measure(environment, scenario);
    log(
      `  ${formatNumber(result.samples)} samples in ${result.seconds.toFixed(1)} s, ` +
        `${(result.bytes / MiB).toFixed(1)} MiB, worker peak RSS ${(result.peakRss / MiB).toFixed(0)} MiB, ` +
        `other CPU ${result.cpu ? `${result.cpu.foreign.toFixed(0)}%` : 'n/a'}`,
    );
    results.push(result);
  };
  for (const scenario of scenarios) await run(scenario);

  log(`Restarting the worker with a ${CAPPED_HEAP_MB} MB V8 heap`);
  await worker.stop();
  const capped = await BenchWorker.start(workerEntry, {
    ...workerEnv,
    NODE_OPTIONS: `--max-old-space-size=${CAPPED_HEAP_MB}`,
  });
  cleanups.push({ label: 'capped worker process', run: () => capped.stop() });
  environment.worker = capped;
  for (const format of ['csv', 'xlsx'] as const) {
    await run({ label: `all, heap ≤ ${CAPPED_HEAP_MB} MB`, format, body: {} });
  }

  const markdown = report(settings, machineLine, version, results);
  const file = join(__dirname, 'results.md');
  const formatted = await prettier.format(markdown, { ...(await prettier.resolveConfig(file)), filepath: file });
  await writeFile(file, formatted);
  log(`\n${formatted}`);
  log(`Written to ${file}`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(
      `bench:export failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => cleanUp().then(() => process.exit()));
