import 'reflect-metadata';
import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { AppConfig, loadAppConfig } from '../../src/core/config/app-config';
import { CoreModule } from '../../src/core/core.module';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { AuthModule } from '../../src/modules/auth/auth.module';
import { TokenService } from '../../src/modules/auth/token.service';
import { ApiProcess, freePort } from '../lib/api-process';
import { dropDatabase } from '../lib/bench-database';
import { CpuShare, startCpuWatch, waitForQuietMachine } from '../lib/cpu-monitor';
import { formatNumber, markdownTable } from '../lib/markdown';
import { LatencySummary, summariseLatencies } from '../lib/percentiles';
import { deleteKeysWithPrefix } from '../lib/redis-keys';

/*
 * `npm run bench:curation`: a database of its own (sr_bench_curation) holding one batch of
 * BENCH_CURATION_SAMPLES samples (5,000) among BENCH_CURATION_OTHER_SAMPLES others, the compiled API
 * started as a separate process, then GET /api/batches/{id}/curation/ timed request by request
 * (one client, 3 warm-up requests, BENCH_CURATION_REQUESTS measured). Target: p95 under 1 s.
 * Prints a Markdown report and writes it to bench/curation/results.md.
 */

const log = (line: string) => process.stdout.write(`${line}\n`);

function integer(name: string, fallback: number, min = 1): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}".`);
  return Number(raw);
}

const settings = {
  batchSamples: integer('BENCH_CURATION_SAMPLES', 5000),
  otherSamples: integer('BENCH_CURATION_OTHER_SAMPLES', 100_000, 0),
  requests: integer('BENCH_CURATION_REQUESTS', 30),
  databaseUrl: process.env.BENCH_CURATION_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sr_bench_curation',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  redisKeyPrefix: 'bench-curation',
  keepDatabase: process.env.BENCH_KEEP === '1',
  quietTimeoutSeconds: integer('BENCH_QUIET_TIMEOUT', 120, 0),
  targetMs: 1000,
};

function apiEnvironment(): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: settings.databaseUrl,
    DATABASE_MIGRATE_ON_START: 'false',
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: settings.redisKeyPrefix,
    JWT_SECRET: 'bench-only-secret-never-used-in-a-deployment-0123456789',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    AUTH_RATE_LIMIT_PER_IP: '100000',
    AUTH_RATE_LIMIT_PER_ACCOUNT: '100000',
  };
}

@Module({})
class CurationBenchModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CurationBenchModule, imports: [CoreModule.forRoot(config), AuthModule] };
  }
}

/** Cleanup steps, run last-registered first, on success, failure and Ctrl-C alike. */
const cleanups: { label: string; run: () => Promise<unknown> }[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length) {
    const step = cleanups.pop();
    try {
      await step?.run();
    } catch (error) {
      process.stderr.write(`cleanup (${step?.label}) failed: ${String(error)}\n`);
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));
}

interface People {
  ownerId: number;
  ownerToken: string;
  curatorToken: string;
}

/** The batch owner (with registry codes IEC00 for the batch, IEC01 for the rest) and a curator, with developer tokens. */
async function createPeople(context: INestApplicationContext): Promise<People> {
  const accounts = context.get(AccountsService);
  const tokens = context.get(TokenService);
  const owner = await accounts.createUser({
    email: 'owner@bench.example.org',
    password: 'bench-owner-password',
    name: 'Bench Owner',
    uploadPermission: true,
  });
  const curator = await accounts.createUser({
    email: 'curator@bench.example.org',
    password: 'bench-curator-password',
    name: 'Bench Curator',
    isStaff: true,
  });
  for (const code of ['IEC00', 'IEC01']) await accounts.createRegistryCode(code, { email: owner.email });
  return {
    ownerId: owner.id,
    ownerToken: (await tokens.issuePair(owner.id, 'developer')).access,
    curatorToken: (await tokens.issuePair(curator.id, 'developer')).access,
  };
}

/**
 * The data, in set-based SQL: the batch's samples share object type, material types, country,
 * elevation unit, description, one collector and one related link, and differ in name, IGSN,
 * coordinates, elevation, sampling date and (every other sample) locality — a realistic spread of
 * shared and differing columns. The other samples belong to other batches.
 */
async function generate(client: Client, ownerId: number): Promise<{ batchId: number; otherBatchId?: number }> {
  const [{ id: objectTypeId }] = (await client.query<{ id: number }>("SELECT id FROM object_type WHERE label = 'Core'"))
    .rows;
  const insertSamples = (code: string, count: number, batchId: number | null, offset: number) =>
    client.query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, material_types, latitude, longitude, elevation,
                           elevation_unit, sampling_start_date, country, locality, sample_description,
                           related_resources, metadata_store_status, user_owner_id, batch_id, created_by)
       SELECT $1 || lpad(n::text, 6, '0'), $1, 'BENCH-' || (n + $4), $2, ARRAY['Igneous>Plutonic', 'Rock'],
              40 + n / 100000.0, -70 + (n % 1000) / 1000.0, 100 + n % 37, 'meters',
              timestamptz '2026-05-01' + (n % 30) * interval '1 day', 'US',
              CASE WHEN n % 2 = 0 THEN 'Ridge segment ' || (n % 11) END, 'Core section, split and described',
              jsonb_build_array(jsonb_build_object('uri', 'https://example.org/cruise/AT42',
                                                   'description', 'Cruise report', 'relation_type', 'IsDocumentedBy')),
              'pending-review', $3, $5, $3
         FROM generate_series(1, $6::int) AS n`,
      [code, objectTypeId, ownerId, offset, batchId, count],
    );
  const [{ id: batchId }] = (
    await client.query<{ id: number }>(
      `INSERT INTO batch_history (registry_code, sample_count, processed_time, filename, uploaded_by_id, user_owner_id,
                                  object_type)
       VALUES ('IEC00', $1, now(), 'bench-cores.xlsx', $2, $2, 'Core') RETURNING id`,
      [settings.batchSamples, ownerId],
    )
  ).rows;
  let otherBatchId: number | undefined;
  if (settings.otherSamples) {
    const [{ id: otherBatch }] = (
      await client.query<{ id: number }>(
        `INSERT INTO batch_history (registry_code, sample_count, processed_time, filename, uploaded_by_id, user_owner_id)
         VALUES ('IEC01', $1, now(), 'others.xlsx', $2, $2) RETURNING id`,
        [settings.otherSamples, ownerId],
      )
    ).rows;
    await insertSamples('IEC01', settings.otherSamples, otherBatch, 1_000_000);
    otherBatchId = otherBatch;
  }
  await insertSamples('IEC00', settings.batchSamples, batchId, 0);
  const [{ id: individualId }] = (
    await client.query<{ id: number }>("INSERT INTO individual (label) VALUES ('Marie Tharp') RETURNING id")
  ).rows;
  const [{ id: collectorId }] = (
    await client.query<{ id: number }>('INSERT INTO collector (individual_id) VALUES ($1) RETURNING id', [individualId])
  ).rows;
  await client.query('INSERT INTO sample_collector (sample_id, position, collector_id) SELECT id, 0, $1 FROM sample', [
    collectorId,
  ]);
  await client.query('ANALYZE');
  return { batchId, otherBatchId };
}

interface Scenario {
  name: string;
  path: string;
  token: string;
  /** Measured requests (default BENCH_CURATION_REQUESTS). */
  requests?: number;
  /** Whether the 1 s target applies (it is set for a 5,000-sample batch). */
  targeted: boolean;
}

interface Measured {
  scenario: Scenario;
  latency: LatencySummary;
  bytes: number;
  samples: number;
  shared: number;
  columns: number;
  cpu?: CpuShare;
}

async function measure(
  baseUrl: string,
  scenario: Scenario,
  watch: () => { stop: () => Promise<CpuShare | undefined> },
): Promise<Measured> {
  const call = async () => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${scenario.path}`, {
      headers: { Authorization: `Bearer ${scenario.token}` },
    });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${scenario.path}: ${response.status} ${text.slice(0, 500)}`);
    return { elapsed, text };
  };
  for (let i = 0; i < 3; i++) await call();
  const latencies: number[] = [];
  let last = '';
  const watching = watch();
  for (let i = 0; i < (scenario.requests ?? settings.requests); i++) {
    const { elapsed, text } = await call();
    latencies.push(elapsed);
    last = text;
  }
  const cpu = await watching.stop();
  const body = JSON.parse(last) as { data: { samples: unknown[]; shared_fields: unknown[]; columns: unknown[] } };
  return {
    scenario,
    latency: summariseLatencies(latencies),
    bytes: Buffer.byteLength(last),
    samples: body.data.samples.length,
    shared: body.data.shared_fields.length,
    columns: body.data.columns.length,
    cpu,
  };
}

async function machine(client: Client): Promise<string> {
  const { rows } = await client.query<{ version: string; shared_buffers: string }>(
    "SELECT current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers",
  );
  const cores = cpus();
  return (
    `${cores.length} × ${cores[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; ` +
    `PostgreSQL ${rows[0].version} (shared_buffers ${rows[0].shared_buffers}); Node.js ${process.version}`
  );
}

async function main(): Promise<void> {
  const entry = resolve(__dirname, '..', '..', 'dist', 'src', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm run bench:curation does).`);
  const config = loadAppConfig({ ...apiEnvironment(), DATABASE_POOL_SIZE: '4', PASSWORD_HASH_ROUNDS: '4' });

  log(`Creating ${new URL(settings.databaseUrl).pathname.slice(1)}: migrations and seed data`);
  await dropDatabase(settings.databaseUrl);
  cleanups.push({
    label: 'database',
    run: async () => (settings.keepDatabase ? undefined : dropDatabase(settings.databaseUrl)),
  });
  cleanups.push({
    label: 'redis keys',
    run: () => deleteKeysWithPrefix(settings.redisUrl, `${settings.redisKeyPrefix}:`),
  });
  await prepareDatabase(config);

  const context = await NestFactory.createApplicationContext(CurationBenchModule.forRoot(config), {
    logger: ['error'],
  });
  const people = await createPeople(context).finally(() => context.close());

  const client = new Client({ connectionString: settings.databaseUrl, application_name: 'bench-curation' });
  await client.connect();
  cleanups.push({ label: 'pg client', run: () => client.end() });
  log(
    `Generating a batch of ${formatNumber(settings.batchSamples)} among ${formatNumber(settings.otherSamples)} other samples`,
  );
  const generatedAt = performance.now();
  const { batchId, otherBatchId } = await generate(client, people.ownerId);
  log(`Generated in ${((performance.now() - generatedAt) / 1000).toFixed(1)} s`);
  const machineLine = await machine(client);

  const port = await freePort();
  const api = await ApiProcess.start({ entry, env: apiEnvironment(), port, readyPath: '/api/health/ready/' });
  cleanups.push({ label: 'API process', run: () => api.stop() });

  const pages = Math.ceil(settings.batchSamples / 100);
  const scenarios: Scenario[] = [
    {
      name: 'Owner, first page (page_size 100, default)',
      path: `/api/batches/${batchId}/curation/`,
      token: people.ownerToken,
      targeted: true,
    },
    {
      name: `Owner, last page (page=${pages})`,
      path: `/api/batches/${batchId}/curation/?page=${pages}`,
      token: people.ownerToken,
      targeted: true,
    },
    {
      name: 'Curator (staff), page_size 1000',
      path: `/api/batches/${batchId}/curation/?page_size=1000`,
      token: people.curatorToken,
      targeted: true,
    },
  ];
  if (otherBatchId !== undefined) {
    // Not a target: how the view scales to the other batch (by default 100,000 samples, the most an upload holds).
    scenarios.push({
      name: `Owner, the other batch (${formatNumber(settings.otherSamples)} samples), first page`,
      path: `/api/batches/${otherBatchId}/curation/`,
      token: people.ownerToken,
      requests: 10,
      targeted: false,
    });
  }
  // The processes under test: this bench, the API, and their PostgreSQL backends.
  const ownPids = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
    );
    return [process.pid, ...(api.pid ? [api.pid] : []), ...rows.map((row) => row.pid)];
  };
  const results: Measured[] = [];
  for (const scenario of scenarios) {
    if (settings.quietTimeoutSeconds) {
      await waitForQuietMachine({ maxBusyPercent: 15, windowMs: 2000, timeoutMs: settings.quietTimeoutSeconds * 1000 });
    }
    log(`Measuring: ${scenario.name}`);
    results.push(await measure(api.baseUrl, scenario, () => startCpuWatch(ownPids)));
  }

  const ms = (value: number) => formatNumber(value, 1);
  const table = markdownTable(
    [
      'Scenario',
      'Requests',
      'Median ms',
      'p95 ms',
      'Max ms',
      'Samples',
      'Shared / columns',
      'Body KiB',
      'Other CPU',
      'p95 < 1 s',
    ],
    results.map((result) => [
      result.scenario.name,
      String(result.latency.count),
      ms(result.latency.p50),
      ms(result.latency.p95),
      ms(result.latency.max),
      formatNumber(result.samples),
      `${result.shared} / ${result.columns}`,
      formatNumber(result.bytes / 1024, 1),
      result.cpu ? `${result.cpu.foreign.toFixed(0)}%` : 'n/a',
      !result.scenario.targeted ? 'n/a' : result.latency.p95 < settings.targetMs ? 'yes' : '**no**',
    ]),
  );
  const markdown = [
    '# Curation benchmark results',
    '',
    `Written by \`npm run bench:curation\` on ${new Date().toISOString()}.`,
    '',
    `- Data: one batch of ${formatNumber(settings.batchSamples)} samples (every sample with one collector and one ` +
      `related link) among ${formatNumber(settings.otherSamples)} samples of another batch.`,
    `- Machine: ${machineLine}.`,
    '- API: one process (`node dist/src/main.js`, NODE_ENV=production, LOG_LEVEL=warn); one client in the bench ' +
      `process, over loopback, one request at a time: 3 warm-up requests, then ${settings.requests} measured ` +
      '(10 for the other batch). The 1 s target is for the 5,000-sample batch.',
    '- Other CPU: the share of the whole machine used during the measured requests by anything but the bench, the ' +
      'API and their PostgreSQL backends; each scenario first waits up to ' +
      `${settings.quietTimeoutSeconds} s for a quiet machine. Figures beside more than ~10% other CPU are disturbed.`,
    '',
    table,
    '',
  ].join('\n');
  await writeFile(join(__dirname, 'results.md'), markdown);
  log(`\n${markdown}`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(
      `bench:curation failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => cleanUp().then(() => process.exit()));
