import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import * as prettier from 'prettier';
import { loadAppConfig } from '../../src/core/config/app-config';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { FakeDataCite } from '../../test/support/fake-datacite';
import { dropDatabase } from '../lib/bench-database';
import { formatNumber, markdownTable } from '../lib/markdown';
import { deleteKeysWithPrefix } from '../lib/redis-keys';
import { BenchWorker } from '../export/worker-process';
import { ensureRegistrant, openBenchContext } from '../samples/setup';

/*
 * `npm run bench:doi`: DOI delivery rate against the DataCite budget. A database of its own
 * (sr_bench_doi) with BENCH_DOI_SAMPLES (default 20,000) published samples waiting in the outbox as
 * bulk work, a fake DataCite in this process that answers at once, and the compiled worker as its
 * own process, started once per budget. For each: the requests the fake received per second over
 * BENCH_DOI_SECONDS (default 30) after the first one, against the bulk budget's rate, and the
 * worker's CPU. Writes bench/doi/results.md.
 */

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Budget {
  label: string;
  perFiveMinutes: number;
  bulkPerFiveMinutes: number;
}

const BUDGETS: Budget[] = [
  { label: 'default (2,500 / bulk 500)', perFiveMinutes: 2500, bulkPerFiveMinutes: 500 },
  { label: 'bulk raised to 2,500', perFiveMinutes: 2500, bulkPerFiveMinutes: 2500 },
  { label: 'far above DataCite (60,000)', perFiveMinutes: 60_000, bulkPerFiveMinutes: 60_000 },
];

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main(): Promise<void> {
  const samples = Number(process.env.BENCH_DOI_SAMPLES ?? 20_000);
  const seconds = Number(process.env.BENCH_DOI_SECONDS ?? 30);
  const databaseUrl = process.env.BENCH_DOI_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sr_bench_doi';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const prefix = 'bench-doi';
  const root = resolve(__dirname, '..', '..');
  const fake = new FakeDataCite('BENCH.DOI', 'bench-password');
  await fake.start();
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATABASE_MIGRATE_ON_START: 'false',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    JWT_SECRET: 'bench-only-secret-never-used-in-a-deployment-0123456789',
    NODE_PATH: join(root, 'node_modules'),
    PUBLIC_URL: 'https://registry.example.org',
    DATACITE_API_URL: fake.url,
    DATACITE_REPOSITORY_ID: fake.repositoryId,
    DATACITE_PASSWORD: fake.password,
    LOG_LEVEL: 'info',
  };

  log(`Preparing ${formatNumber(samples)} pending bulk DOIs in sr_bench_doi…`);
  await dropDatabase(databaseUrl);
  const config = loadAppConfig(env);
  await prepareDatabase(config);
  const context = await openBenchContext(config);
  const registrant = await ensureRegistrant(context, samples);
  await context.close();
  const pool = new Pool({ connectionString: databaseUrl });
  await pool.query(
    `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id, latitude, longitude)
     SELECT $1 || lpad(n::text, 6, '0'), $1, 'doi-bench-' || n, ot.id, 'published', $2, 10, 20
       FROM generate_series(1, $3::int) n, (SELECT id FROM object_type WHERE label = 'Individual sample' LIMIT 1) ot`,
    [registrant.codes[0], registrant.userId, samples],
  );

  const rows: string[][] = [];
  for (const budget of BUDGETS) {
    await deleteKeysWithPrefix(redisUrl, prefix);
    const worker = await BenchWorker.start(join(root, 'dist', 'src', 'worker.js'), {
      ...env,
      DATACITE_REQUESTS_PER_5_MIN: String(budget.perFiveMinutes),
      DATACITE_BULK_REQUESTS_PER_5_MIN: String(budget.bulkPerFiveMinutes),
    });
    const firstIndex = fake.requests.length;
    while (fake.requests.length === firstIndex) await new Promise((r) => setTimeout(r, 50));
    const start = fake.requests[firstIndex].at;
    const cpuBefore = cpuSeconds(worker.pid);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const cpu = cpuSeconds(worker.pid) - cpuBefore;
    const sent = fake.requests.slice(firstIndex).filter((request) => request.at < start + seconds * 1000).length;
    await worker.stop();
    const allowed = budget.bulkPerFiveMinutes / 300;
    const rate = sent / seconds;
    log(`${budget.label}: ${rate.toFixed(2)} requests/s of ${allowed.toFixed(2)} allowed`);
    rows.push([
      budget.label,
      formatNumber(allowed, 2),
      formatNumber(rate, 2),
      `${formatNumber((rate / allowed) * 100, 0)} %`,
      `${formatNumber((cpu / seconds) * 100, 1)} %`,
    ]);
  }
  await pool.end();
  await fake.stop();
  await deleteKeysWithPrefix(redisUrl, prefix);

  const report = [
    '# DOI delivery against the DataCite budget (`npm run bench:doi`)',
    '',
    `${formatNumber(samples)} published samples pending as bulk work; a fake DataCite in the bench process ` +
      'answering at once; one compiled worker (`node dist/src/worker.js`, WORKER_CONCURRENCY 2, ' +
      `DATACITE_CONCURRENCY 4) per budget; requests counted over ${seconds} s after the first. ` +
      `${cpus().length} cores, shared with whatever else ran.`,
    '',
    markdownTable(['Budget', 'Bulk allowed (req/s)', 'Delivered (req/s)', 'Of the budget', 'Worker CPU'], rows),
    '',
  ].join('\n');
  const path = join(root, 'bench', 'doi', 'results.md');
  await writeFile(path, await prettier.format(report, { parser: 'markdown', proseWrap: 'preserve' }));
  log(`\n${report}\nWritten to ${path}`);
  await dropDatabase(databaseUrl);
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
