import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import * as prettier from 'prettier';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { SampleWriteRepository } from '../../src/modules/samples/sample-write.repository';
import { ApiProcess, ApiProcessOptions, freePort, snapshotBuild } from '../lib/api-process';
import { CpuShare, LoadHooks, TransientProcesses, startCpuWatch, waitForQuietMachine } from '../lib/cpu-monitor';
import { databaseExists, dropDatabase } from '../lib/bench-database';
import { formatNumber, markdownTable } from '../lib/markdown';
import { deleteKeysWithPrefix } from '../lib/redis-keys';
import { GenerateResult, generateSamples } from './generate';
import { DETAILS_BY_IDS, fetchStatement, listStatements } from './sql-side';
import {
  Figure,
  LIST_PAGES,
  Measurement,
  Scenario,
  ScenarioEnvironment,
  ScenarioReport,
  coldStatistics,
  counts,
  cpuPerRequest,
  fetchByIgsn,
  largePage,
  publicList,
  queryPlans,
  register,
  revalidate,
  searchWithQ,
} from './scenarios';
import {
  BenchSettings,
  ScenarioName,
  sizeLabel,
  SAMPLES_PER_CODE,
  apiEnvironment,
  benchConfig,
  benchSettings,
  ensureRegistrant,
  openBenchContext,
} from './setup';

/** Resolves once the standby at `standbyUrl` has replayed everything the primary has written now. */
async function waitForStandby(primary: Pool, standbyUrl: string): Promise<void> {
  const [{ lsn }] = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows;
  const standby = new Pool({ connectionString: standbyUrl, max: 1, application_name: 'bench-standby-wait' });
  try {
    for (;;) {
      const { rows } = await standby.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
        lsn,
      ]);
      if (rows[0].done) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await standby.end();
  }
}

/*
 * `npm run bench:samples`: a database of its own per size (sr_bench_1m, sr_bench_10m, …) with
 * BENCH_SAMPLES synthetic samples, the compiled API started as a separate process, then the
 * scenarios of BENCH_SCENARIOS, each measured over HTTP with autocannon and beside it the same
 * statements straight through pg (sql-side.ts). Prints a Markdown report and writes it to
 * bench/samples/results.md (results-10m.md and the like for other sizes than 1,000,000).
 */

/**
 * The scenarios in the order they run (register last but one: it adds rows; counts last). Those
 * `byProcesses` run once for each of BENCH_API_PROCESSES, the others with its first count.
 */
const SCENARIOS: { name: ScenarioName; title: string; run: Scenario; byProcesses: boolean }[] = [
  { name: 'cold', title: 'Right after loading, before any ANALYZE', run: coldStatistics, byProcesses: false },
  { name: 'fetch', title: 'Fetch by IGSN, anonymous and with a token', run: fetchByIgsn, byProcesses: true },
  { name: 'list', title: 'Public list, page_size=25', run: publicList, byProcesses: true },
  { name: 'revalidate', title: 'Revalidation with If-None-Match', run: revalidate, byProcesses: true },
  { name: 'q', title: 'Search with q', run: searchWithQ, byProcesses: true },
  { name: 'page2000', title: 'page_size=2000', run: largePage, byProcesses: false },
  { name: 'register', title: 'Register', run: register, byProcesses: true },
  { name: 'count', title: 'Counts', run: counts, byProcesses: false },
];

const processesLabel = (processes: number) => `${processes} API process${processes === 1 ? '' : 'es'}`;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Cleanup steps, run last-registered first, on success, failure and Ctrl-C alike. */
const cleanups: { label: string; run: () => Promise<unknown> }[] = [];
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const step = cleanups.pop();
      if (!step) break;
      try {
        await step.run();
      } catch (error) {
        process.stderr.write(
          `cleanup (${step.label}) failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the API and cleaning up\n`);
    // Work still in flight fails as its connections close: expected now, not a crash.
    process.on('unhandledRejection', () => undefined);
    void cleanUp().then(() => process.exit(130));
  });
}

interface DataSetFacts {
  samples: number;
  publicSamples: number;
  withCollectors: number;
  generated?: GenerateResult;
}

async function dataSetFacts(pool: Pool): Promise<Omit<DataSetFacts, 'generated'>> {
  const { rows } = await pool.query<{ samples: string; public: string; with_collectors: string }>(
    `SELECT count(*) AS samples,
            count(*) FILTER (WHERE metadata_store_status = 'published' AND NOT is_deactivated) AS public,
            (SELECT count(DISTINCT sample_id) FROM sample_collector) AS with_collectors
       FROM sample`,
  );
  return {
    samples: Number(rows[0].samples),
    publicSamples: Number(rows[0].public),
    withCollectors: Number(rows[0].with_collectors),
  };
}

async function machine(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ version: string; shared_buffers: string }>(
    "SELECT current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers",
  );
  const cores = cpus();
  return (
    `${cores.length} × ${cores[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; ` +
    `PostgreSQL ${rows[0].version} (shared_buffers ${rows[0].shared_buffers}); Node.js ${process.version}`
  );
}

/** The commit measured, and whether the working tree differed from it (the build compiles what is there). */
function codeVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'src', 'migrations').split('\n').filter(Boolean).length;
    return `commit ${git('rev-parse', '--short', 'HEAD')}${changed ? ` with ${changed} uncommitted changes in src/ and migrations/` : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** Rates and shares: higher is better; latencies and counts: lower is. */
const higherIsBetter = (figure: Figure) => figure.kind === 'rate' || figure.kind === 'share';

function verdict(figure: Figure, bareFetch: number | undefined): string {
  const checks: boolean[] = [];
  if (figure.target !== undefined)
    checks.push(higherIsBetter(figure) ? figure.api >= figure.target : figure.api <= figure.target);
  if (figure.minShareOfSql !== undefined)
    checks.push(figure.sql !== undefined && figure.api >= figure.minShareOfSql * figure.sql);
  if (figure.minShareOfBareFetch !== undefined)
    checks.push(bareFetch !== undefined && figure.api >= figure.minShareOfBareFetch * bareFetch);
  if (checks.length === 0) return '';
  return checks.every(Boolean) ? 'yes' : '**no**';
}

function target(figure: Figure): string {
  const parts: string[] = [];
  if (figure.target !== undefined) parts.push(`${higherIsBetter(figure) ? '≥' : '≤'} ${formatNumber(figure.target)}`);
  if (figure.minShareOfSql !== undefined) parts.push(`≥ ${(figure.minShareOfSql * 100).toFixed(0)}% of SQL`);
  if (figure.minShareOfBareFetch !== undefined)
    parts.push(`≥ ${(figure.minShareOfBareFetch * 100).toFixed(0)}% of bare fetch`);
  return parts.join(', ');
}

function report(
  version: string,
  settings: BenchSettings,
  machineLine: string,
  facts: DataSetFacts,
  scenarios: ScenarioReport[],
  plans: { title: string; plan: string }[],
  baseline: ScenarioEnvironment['baseline'],
): string {
  const bareFetch = baseline.fetchPerSecond;
  const digits = (figure: Figure) =>
    figure.kind === 'rate' || Number.isInteger(figure.api) ? 0 : figure.kind === 'count' ? 2 : 1;
  const other = (share?: CpuShare) => (share ? `${share.foreign.toFixed(0)}%` : 'n/a');
  const rows = scenarios.flatMap((scenario) =>
    scenario.figures.map((figure, index) => [
      index === 0 ? scenario.name : '',
      figure.metric,
      formatNumber(figure.api, digits(figure)),
      figure.sql === undefined ? '' : formatNumber(figure.sql, digits(figure)),
      figure.sql === undefined ? '' : formatNumber(figure.api / figure.sql, 2),
      figure.bare === undefined ? '' : formatNumber(figure.bare, digits(figure)),
      figure.kind === 'rate' && bareFetch ? formatNumber(figure.api / bareFetch, 2) : '',
      target(figure),
      verdict(figure, bareFetch),
      index === 0 ? `${other(scenario.cpu.api)} / ${other(scenario.cpu.sql)}` : '',
    ]),
  );
  const perRequest = (measurement: Measurement, group: string) => {
    const ms = cpuPerRequest(measurement)?.[group];
    return ms === undefined ? 'n/a' : formatNumber(ms, 2);
  };
  const runs = scenarios.flatMap((scenario) =>
    scenario.runs.map((measurement) => [
      measurement.label,
      formatNumber(measurement.perSecond, 0),
      formatNumber(measurement.latency.p50, 1),
      formatNumber(measurement.latency.p95, 1),
      formatNumber(measurement.latency.p99, 1),
      measurement.failed ? `**${formatNumber(measurement.failed)}**` : '0',
      perRequest(measurement, 'api'),
      perRequest(measurement, 'postgres'),
      perRequest(measurement, 'bench'),
      other(measurement.cpu),
    ]),
  );
  const generated = facts.generated
    ? ` Generated in ${facts.generated.seconds.toFixed(0)} s (set-based SQL on ${settings.loadConnections} ` +
      'connections, foreign-key triggers off, indexes rebuilt after the load).'
    : ' (Reused from an earlier run: BENCH_REUSE=1.)';
  return [
    '# Samples benchmark results',
    '',
    `Written by \`npm run bench:samples\` on ${new Date().toISOString()}.`,
    '',
    `- Data: ${formatNumber(facts.samples)} samples (${formatNumber(facts.publicSamples)} public, ` +
      `${formatNumber(facts.withCollectors)} with collectors), BENCH_SAMPLES=${settings.samples}.${generated}`,
    `- Machine: ${machineLine}.`,
    `- Code: ${version}.`,
    `- API: NODE_ENV=production, LOG_LEVEL=warn, ${settings.apiProcesses.map(deploymentDescription(settings)).join('; ')}; ` +
      'autocannon and the SQL client run in the bench process on the same machine, over loopback. ' +
      `Fetch, list, revalidate, q and register run with each count (BENCH_API_PROCESSES=${settings.apiProcesses.join(',')}), ` +
      'the other scenarios with the first; the bare app and SQL runs are measured once and serve every count. ' +
      '"API CPU ms" sums every API process (and the supervising one).',
    `- Scenarios: ${settings.scenarios.join(', ')} (BENCH_SCENARIOS).`,
    settings.standbyUrl
      ? '- Reads: the API routes its reads to a streaming standby on this same machine (BENCH_READS_ON_STANDBY=1): ' +
        'the figures show what the routing costs, not extra capacity — primary and standby share these cores. ' +
        'The SQL side still runs on the primary.'
      : '- Reads: all on the primary (BENCH_READS_ON_STANDBY=1 routes them to a standby).',
    `- Throughput scenarios: ${settings.warmupSeconds} s warm-up, then ${settings.durationSeconds} s measured; ` +
      `page_size=2000: 3 warm-up requests, then ${settings.pageRequests} measured. Latencies are per request, ` +
      'percentiles exact (nearest rank). API ÷ SQL: below 1 for a rate, above 1 for a latency, is the cost of the API.',
    '- Other CPU: the share of the whole machine used, during the measured API run / SQL run, by anything but ' +
      'the bench, the API and their PostgreSQL backends (other jobs, PostgreSQL background writers). Each run ' +
      `first waits up to ${settings.quietTimeoutSeconds} s for the machine to be quiet; figures measured beside ` +
      'more than ~10% other CPU are disturbed.',
    '',
    bareFetch === undefined
      ? 'The bare NestJS + pg app was not measured in this run (the fetch scenario did not run).'
      : `The bare NestJS + pg app (bench/samples/bare-app.ts: the same fetch and list statements, one pg pool, ` +
        `no auth, logging or validation) fetched ${formatNumber(bareFetch, 0)} samples/s in this run ` +
        `(the mean of ${(baseline.fetchRuns ?? []).map((rate) => `${formatNumber(rate, 0)}/s`).join(' before and ')} ` +
        `after the API's fetch runs); ` +
        '"API ÷ bare fetch" is every rate as a ratio to it — the figure to compare across machines.',
    '',
    markdownTable(
      ['Scenario', 'Metric', 'API', 'SQL', 'API ÷ SQL', 'Bare app', 'API ÷ bare fetch', 'Target', 'Met', 'Other CPU'],
      rows,
    ),
    '',
    'Every run, with the CPU time per request of the API process, of the PostgreSQL backends serving it and ' +
      'of the bench process (autocannon or the pg client):',
    '',
    markdownTable(
      [
        'Run',
        'per s',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'Failed',
        'API CPU ms',
        'PostgreSQL CPU ms',
        'Bench CPU ms',
        'Other CPU',
      ],
      runs,
    ),
    '',
    'Failed: non-2xx answers and requests without an answer (HTTP), failed statements (SQL).',
    '',
    ...scenarios.flatMap((scenario) =>
      scenario.notes.length ? [`### ${scenario.name}`, '', ...scenario.notes.flatMap((note) => [note, ''])] : [],
    ),
    '## Query plans',
    '',
    ...plans.flatMap(({ title, plan }) => [`### ${title}`, '', '```text', plan, '```', '']),
  ].join('\n');
}

/** How the bench runs `processes` API processes, for the report. */
function deploymentDescription(settings: BenchSettings): (processes: number) => string {
  return (processes) =>
    processes === 1
      ? `1 process: \`node dist/src/main.js\`, DATABASE_POOL_SIZE=${settings.apiPoolSize}`
      : `${processes} processes: \`node dist/src/start-all.js\` (as \`npm start\`) with API_PROCESSES=${processes}, ` +
        `START_WORKER=false, DATABASE_POOL_SIZE=${poolPerProcess(settings, processes)} each (node:cluster on one port)`;
}

/** Each API process's share of the pool, so every process count opens as many connections as one process. */
function poolPerProcess(settings: BenchSettings, processes: number): number {
  return Math.ceil(settings.apiPoolSize / processes);
}

/** The API under test with `processes` processes, started from the build copy. */
function startApi(settings: BenchSettings, buildRoot: string, processes: number, port: number): Promise<ApiProcess> {
  const options: ApiProcessOptions = {
    entry: join(buildRoot, 'dist', 'src', 'main.js'),
    nodeArgs: settings.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', settings.cpuProfileDir] : [],
    env: apiEnvironment(settings),
    port,
    readyPath: '/api/health/ready/',
  };
  if (processes === 1) return ApiProcess.start(options);
  return ApiProcess.start({
    ...options,
    entry: join(buildRoot, 'dist', 'src', 'start-all.js'),
    nodeArgs: [],
    env: {
      ...options.env,
      API_PROCESSES: String(processes),
      START_WORKER: 'false',
      DATABASE_POOL_SIZE: String(poolPerProcess(settings, processes)),
    },
    // The supervisor logs each API process once it listens; the ready path answers after the first.
    readyOutput: { text: 'listening on', times: processes },
  });
}

async function main(): Promise<void> {
  const settings = benchSettings();
  if (settings.cpuProfileDir && settings.apiProcesses.some((count) => count !== 1)) {
    // One profile per process and one set of windows: profiles are of the single-process API only.
    log('BENCH_CPU_PROFILE: measuring 1 API process only (BENCH_API_PROCESSES ignored)');
    settings.apiProcesses = [1];
  }
  const projectRoot = resolve(__dirname, '..', '..');
  if (!existsSync(join(projectRoot, 'dist', 'src', 'main.js'))) {
    throw new Error('dist/src/main.js is missing: run `npm run build` (npm run bench:samples does).');
  }
  const config = benchConfig(settings);
  // Read before the run: others may edit the tree while it measures what was built.
  const version = codeVersion();

  let contextPromise: Promise<INestApplicationContext> | undefined;
  const context = () => {
    if (!contextPromise) {
      contextPromise = openBenchContext(config);
      cleanups.push({ label: 'Nest context', run: async () => (await contextPromise)?.close() });
    }
    return contextPromise;
  };
  cleanups.push({
    label: 'database',
    run: async () => {
      if (!settings.keepDatabase) {
        await dropDatabase(settings.databaseUrl);
        log('Dropped the bench database (BENCH_KEEP=0).');
      }
    },
  });
  cleanups.push({
    label: 'redis keys',
    run: () => deleteKeysWithPrefix(settings.redisUrl, `${settings.redisKeyPrefix}:`),
  });

  const reuse = settings.reuseDatabase && (await databaseExists(settings.databaseUrl));
  const databaseName = new URL(settings.databaseUrl).pathname.slice(1);
  if (reuse) {
    log(`Reusing ${databaseName} (BENCH_REUSE=1): applying pending migrations`);
    await prepareDatabase(config);
  } else {
    log(`Creating ${databaseName}: migrations and seed data`);
    await dropDatabase(settings.databaseUrl);
    await prepareDatabase(config);
  }
  const nest = await context();
  const registrant = await ensureRegistrant(nest, settings.samples);
  let generated: GenerateResult | undefined;
  if (!reuse) {
    log(`Generating ${formatNumber(settings.samples)} samples`);
    generated = await generateSamples(settings.databaseUrl, {
      count: settings.samples,
      ownerUserId: registrant.userId,
      registryCodes: registrant.codes,
      perCode: SAMPLES_PER_CODE,
      connections: settings.loadConnections,
      log,
    });
    log(`Generated in ${generated.seconds.toFixed(0)} s`);
  } else {
    // What the worker's TableStatisticsKeeper does every minute in a deployment (the bench starts no
    // worker): a reused database carries the samples earlier runs registered, unanalysed and in the
    // trigram indexes' pending lists, which every text search would read in full.
    await nest.get(SampleWriteRepository).refreshStatistics('a reused bench database');
  }

  // The API's statement timeout too (DATABASE_STATEMENT_TIMEOUT_MS default), so SQL without statistics ends alike.
  const pool = new Pool({
    connectionString: settings.databaseUrl,
    max: 32,
    application_name: 'bench-sql',
    statement_timeout: 60_000,
  });
  cleanups.push({ label: 'pg pool', run: () => pool.end() });
  const facts: DataSetFacts = { ...(await dataSetFacts(pool)), generated };
  const machineLine = await machine(pool);
  log(`${formatNumber(facts.samples)} samples, ${formatNumber(facts.publicSamples)} public. ${machineLine}`);

  if (settings.standbyUrl) {
    // A standby still replaying the generated rows would lag past READ_REPLICA_MAX_LAG_SECONDS and
    // get no reads: measure once it has caught up.
    log('Waiting for the standby to replay the data set');
    await waitForStandby(pool, settings.standbyUrl);
  }

  const build = await snapshotBuild(projectRoot);
  cleanups.push({ label: 'build copy', run: () => build.remove() });
  if (settings.cpuProfileDir) {
    await mkdir(settings.cpuProfileDir, { recursive: true });
    log(`Profiling the API's CPU into ${settings.cpuProfileDir} (written when it stops)`);
  }
  // One API deployment runs at a time (another process count replaces it): they would share the cores.
  let api: { processes: number; process: ApiProcess } | undefined;
  const useApi = async (processes: number): Promise<ApiProcess> => {
    if (api?.processes === processes) return api.process;
    if (api) {
      log(`Stopping the API (${processesLabel(api.processes)})`);
      await api.process.stop();
    }
    const port = await freePort();
    log(`Starting the API on 127.0.0.1:${port} (${processesLabel(processes)})`);
    api = { processes, process: await startApi(settings, build.root, processes, port) };
    return api.process;
  };
  cleanups.push({ label: 'API process', run: async () => api?.process.stop() });

  const ownPids = async () => {
    const { rows } = await pool.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'",
    );
    return { bench: [process.pid], api: api?.process.pids() ?? [], postgres: rows.map((row) => row.pid) };
  };
  // Parallel workers (count(*) over the public samples) live for one statement: polled, not listed.
  const parallelWorkers: TransientProcesses = {
    label: 'postgres',
    pids: async () =>
      (
        await pool.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'parallel worker'",
        )
      ).rows.map((row) => row.pid),
  };
  const hooks: LoadHooks = {
    beforeWarmup: async () => {
      if (!settings.quietTimeoutSeconds) return;
      let lastNote = 0;
      await waitForQuietMachine({
        maxBusyPercent: 10,
        windowMs: 2000,
        timeoutMs: settings.quietTimeoutSeconds * 1000,
        onWait: (busy) => {
          if (Date.now() - lastNote < 30_000) return;
          lastNote = Date.now();
          log(`  waiting for a quiet machine: ${busy.toFixed(0)}% busy with other work`);
        },
      });
    },
    watch: () => startCpuWatch(ownPids, parallelWorkers),
  };
  // The limit to approach: NestJS + Express + pg serving the same fetch and list statements, nothing else.
  const bareStatements = {
    fetch: fetchStatement('').text,
    details: DETAILS_BY_IDS,
    list: Object.fromEntries(
      await Promise.all(
        LIST_PAGES.map(async (page) => [String(page), (await listStatements(nest, {}, { page, pageSize: 25 })).ids]),
      ),
    ),
  };
  const barePort = await freePort();
  log(`Starting the bare NestJS + pg app on 127.0.0.1:${barePort}`);
  const bare = await ApiProcess.start({
    entry: join(__dirname, 'bare-app.ts'),
    nodeArgs: ['-r', 'ts-node/register/transpile-only'],
    env: {
      DATABASE_URL: settings.databaseUrl,
      DATABASE_POOL_SIZE: String(settings.apiPoolSize),
      HOST: '127.0.0.1',
      BARE_STATEMENTS: JSON.stringify(bareStatements),
    },
    port: barePort,
    readyPath: '/health',
  });
  cleanups.push({ label: 'bare app', run: () => bare.stop() });
  const shared = {
    settings,
    bareUrl: bare.baseUrl,
    baseline: {} as ScenarioEnvironment['baseline'],
    sideRuns: new Map() as ScenarioEnvironment['sideRuns'],
    pool,
    context: nest,
    registrant,
    hooks,
    log,
    profileWindows: settings.cpuProfileDir ? [] : undefined,
  } satisfies Omit<ScenarioEnvironment, 'apiUrl' | 'apiProcesses'>;
  const scenarios: { order: number; processes: number; reports: ScenarioReport[] }[] = [];
  const chosen = SCENARIOS.filter(({ name }) => settings.scenarios.includes(name));
  const named = settings.apiProcesses.length > 1 || settings.apiProcesses[0] !== 1;
  for (const [index, scenario] of chosen.entries()) {
    const counts = scenario.byProcesses ? settings.apiProcesses : settings.apiProcesses.slice(0, 1);
    // The deployment already running first: one restart fewer per scenario.
    const ordered = [...counts].sort((a, b) => Number(b === api?.processes) - Number(a === api?.processes));
    for (const processes of ordered) {
      log(`\n(${index + 1}) ${scenario.title}${named ? `, ${processesLabel(processes)}` : ''}`);
      const apiUrl = (await useApi(processes)).baseUrl;
      const reports = await scenario.run({ ...shared, apiUrl, apiProcesses: processes });
      if (named) for (const report of reports) report.name = `${report.name}, ${processesLabel(processes)}`;
      scenarios.push({ order: index, processes, reports });
    }
  }
  if (settings.cpuProfileDir && shared.profileWindows) {
    const windowsFile = join(settings.cpuProfileDir, 'windows.json');
    await writeFile(windowsFile, `${JSON.stringify(shared.profileWindows, null, 2)}\n`);
    log(`Measured windows for the profile: ${windowsFile} (bench/lib/cpu-profile.ts reads them)`);
  }
  log('\nQuery plans');
  const plans = await queryPlans(shared);

  const reports = scenarios
    .sort((a, b) => a.order - b.order || a.processes - b.processes)
    .flatMap((scenario) => scenario.reports);
  const markdown = report(version, settings, machineLine, facts, reports, plans, shared.baseline);
  const file = join(
    __dirname,
    `results${settings.samples === 1_000_000 ? '' : `-${sizeLabel(settings.samples)}`}${settings.standbyUrl ? '-standby' : ''}.md`,
  );
  const formatted = await prettier.format(markdown, { ...(await prettier.resolveConfig(file)), filepath: file });
  await writeFile(file, formatted);
  log(`\n${formatted.split('\n## Query plans')[0]}`);
  log(`Written to ${file}`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(
      `bench:samples failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => cleanUp().then(() => process.exit()));
