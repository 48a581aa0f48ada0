import { INestApplicationContext } from '@nestjs/common';
import { Pool } from 'pg';
import { CpuShare, LoadHooks } from '../lib/cpu-monitor';
import { HttpLoadResult, runHttpLoad } from '../lib/http-load';
import { LatencySummary } from '../lib/percentiles';
import { runSqlLoad, SqlLoadResult } from '../lib/sql-load';
import { SAMPLE_DETAIL as SAMPLE_SELECT } from '../../src/modules/samples/sample.repository';
import { SamplesService } from '../../src/modules/samples/samples.service';
import { LITHOLOGIES, SITES, mintedSuffixSql, searchTerms } from './generate';
import { BenchSettings, Registrant } from './setup';

/** One figure of a scenario, measured through the API and straight in SQL. */
export interface Figure {
  metric: string;
  api: number;
  sql: number;
  /** Higher is better for rates, lower for latencies; the target is checked against `api`. */
  kind: 'rate' | 'latency';
  target?: number;
}

export interface ScenarioReport {
  name: string;
  figures: Figure[];
  /** CPU shares during the measured API run and SQL run. */
  cpu: { api?: CpuShare; sql?: CpuShare };
  /** Every measured run: the API and SQL runs behind the figures, then the ones that explain them. */
  runs: Measurement[];
  notes: string[];
}

/** One measured run (over HTTP or straight SQL). */
export interface Measurement {
  label: string;
  /** Requests (or SQL operations) completed. */
  count: number;
  perSecond: number;
  latency: LatencySummary;
  cpu?: CpuShare;
}

function measured(label: string, result: HttpLoadResult | SqlLoadResult): Measurement {
  return 'okPerSecond' in result
    ? { label, count: result.ok, perSecond: result.okPerSecond, latency: result.latency, cpu: result.cpu }
    : { label, count: result.operations, perSecond: result.perSecond, latency: result.latency, cpu: result.cpu };
}

/** CPU milliseconds per request of each process group under test (API process, PostgreSQL backends, bench). */
export function cpuPerRequest(measurement: Measurement): Record<string, number> | undefined {
  const seconds = measurement.cpu?.cpuSeconds;
  if (!seconds || !measurement.count) return undefined;
  return Object.fromEntries(Object.entries(seconds).map(([group, used]) => [group, (1000 * used) / measurement.count]));
}

export interface ScenarioEnvironment {
  settings: BenchSettings;
  apiUrl: string;
  /** pg pool of the bench process for the SQL side (sized for the largest concurrency × 2). */
  pool: Pool;
  context: INestApplicationContext;
  registrant: Registrant;
  /** Wait for a quiet machine before each warm-up; watch CPU shares during each measured run. */
  hooks: LoadHooks;
  log: (line: string) => void;
}

/** Refuses figures built on failed requests: more than 1% non-2xx responses and connection errors. */
function checkHttp(name: string, result: HttpLoadResult): void {
  const failed = result.responses - result.ok + result.errors;
  if (result.responses === 0 || failed / Math.max(1, result.responses) > 0.01) {
    throw new Error(
      `${name}: ${failed} of ${result.responses} requests failed (statuses ${JSON.stringify(result.failures)}, ` +
        `${result.errors} connection errors).`,
    );
  }
}

/** Collects a scenario's runs, logging each as it completes. */
function recorder(log: (line: string) => void) {
  const runs: Measurement[] = [];
  return {
    runs,
    record: (label: string, result: HttpLoadResult | SqlLoadResult) => {
      const measurement = measured(label, result);
      describe(log, measurement);
      runs.push(measurement);
    },
  };
}

function describe(log: (line: string) => void, measurement: Measurement): void {
  const { cpu, latency } = measurement;
  const perRequest = cpuPerRequest(measurement);
  log(
    `  ${measurement.label}: ${measurement.perSecond.toFixed(1)}/s, p50 ${latency.p50.toFixed(1)} ms, ` +
      `p95 ${latency.p95.toFixed(1)} ms (${measurement.count} requests` +
      (cpu ? `; machine ${cpu.machineBusy.toFixed(0)}% busy, other work ${cpu.foreign.toFixed(0)}%` : '') +
      (perRequest
        ? `; CPU ms per request: ${Object.entries(perRequest)
            .map(([group, ms]) => `${group} ${ms.toFixed(2)}`)
            .join(', ')}`
        : '') +
      ')',
  );
}

/** Random public IGSNs to fetch, so the API and SQL sides read the same spread of rows. */
async function publicIgsns(pool: Pool, count: number): Promise<string[]> {
  const { rows } = await pool.query<{ igsn: string }>(
    `SELECT igsn FROM sample TABLESAMPLE BERNOULLI (5) REPEATABLE (7)
      WHERE metadata_store_status = 'published' AND NOT is_deactivated AND publish_date <= now()
      ORDER BY random() LIMIT $1`,
    [count],
  );
  return rows.map((row) => row.igsn);
}

/** (1) GET /api/samples/{igsn}/ anonymously, 16 connections, over 10,000 random public IGSNs. */
export async function fetchByIgsn(env: ScenarioEnvironment): Promise<ScenarioReport> {
  const { settings, pool, log } = env;
  const { runs, record } = recorder(log);
  const igsns = await publicIgsns(pool, 10_000);
  let next = 0;
  const http = await runHttpLoad({
    url: env.apiUrl,
    connections: 16,
    durationSeconds: settings.durationSeconds,
    warmup: { durationSeconds: settings.warmupSeconds },
    hooks: env.hooks,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `/api/samples/${igsns[next++ % igsns.length]}/` }),
      },
    ],
  });
  checkHttp('fetch', http);
  record('Fetch: API, 16 connections', http);
  // SampleReader.byIgsn runs this as a named prepared statement (planned once per pooled connection).
  const sql = await runSqlLoad({
    concurrency: 16,
    durationSeconds: settings.durationSeconds,
    warmup: { durationSeconds: settings.warmupSeconds },
    hooks: env.hooks,
    operation: (n) =>
      pool.query({
        name: 'bench-sample-by-igsn',
        text: `${SAMPLE_SELECT} WHERE s.igsn = $1`,
        values: [igsns[n % igsns.length]],
      }),
  });
  record('Fetch: SQL as a named prepared statement (as the API runs it), 16 clients', sql);
  // The same statement unnamed, planned on every execution: what planning the ten-way join costs.
  const unprepared = await runSqlLoad({
    concurrency: 16,
    durationSeconds: settings.durationSeconds,
    warmup: { durationSeconds: settings.warmupSeconds },
    hooks: env.hooks,
    operation: (n) => pool.query(`${SAMPLE_SELECT} WHERE s.igsn = $1`, [igsns[n % igsns.length]]),
  });
  record('Fetch: SQL unnamed, planned on every execution, 16 clients', unprepared);
  return {
    name: 'Fetch by IGSN, 16 connections',
    figures: [
      { metric: 'req/s', api: http.okPerSecond, sql: sql.perSecond, kind: 'rate', target: 2000 },
      { metric: 'p50 ms', api: http.latency.p50, sql: sql.latency.p50, kind: 'latency' },
      { metric: 'p95 ms', api: http.latency.p95, sql: sql.latency.p95, kind: 'latency' },
    ],
    cpu: { api: http.cpu, sql: sql.cpu },
    runs,
    notes: [],
  };
}

/** The two statements SamplesService.search runs for one page, built from its own searchCondition. */
async function searchStatements(
  context: INestApplicationContext,
  query: Record<string, string>,
  pageSize: number,
): Promise<{ rows: { text: string; values: unknown[] }; count: { text: string; values: unknown[] } }> {
  const { where, params } = await context.get(SamplesService).searchCondition(query, undefined);
  return {
    rows: {
      text: `${SAMPLE_SELECT} WHERE ${where} ORDER BY s.created_at DESC, s.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      values: [...params, pageSize, 0],
    },
    count: { text: `SELECT count(*) AS count FROM sample s WHERE ${where}`, values: params },
  };
}

type Statements = Awaited<ReturnType<typeof searchStatements>>;

/** Runs one search page the way the service does: page and count in parallel, on two connections. */
function searchPage(pool: Pool, statements: Statements): Promise<unknown> {
  return Promise.all([
    pool.query(statements.rows.text, statements.rows.values),
    pool.query(statements.count.text, statements.count.values),
  ]);
}

/** (2) GET /api/samples/?q=<term> anonymously, 8 connections, terms of 3-5 letters from names. */
export async function searchWithQ(env: ScenarioEnvironment): Promise<ScenarioReport & { termMatches: number[] }> {
  const { settings, pool, log } = env;
  const { runs, record } = recorder(log);
  const terms = searchTerms();
  let next = 0;
  const http = await runHttpLoad({
    url: env.apiUrl,
    connections: 8,
    durationSeconds: settings.durationSeconds,
    warmup: { durationSeconds: settings.warmupSeconds },
    hooks: env.hooks,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: `/api/samples/?q=${encodeURIComponent(terms[next++ % terms.length])}`,
        }),
      },
    ],
  });
  checkHttp('search q', http);
  record('q search: API, 8 connections', http);
  const statements = await Promise.all(terms.map((q) => searchStatements(env.context, { q }, 25)));
  const sqlRun = (operation: (n: number) => Promise<unknown>) =>
    runSqlLoad({
      concurrency: 8,
      durationSeconds: settings.durationSeconds,
      warmup: { durationSeconds: settings.warmupSeconds },
      hooks: env.hooks,
      operation,
    });
  const sql = await sqlRun((n) => searchPage(pool, statements[n % statements.length]));
  record('q search: SQL page and count in parallel, 8 clients', sql);
  const rowsOnly = await sqlRun((n) => {
    const { rows } = statements[n % statements.length];
    return pool.query(rows.text, rows.values);
  });
  record('q search: SQL page statement alone (LIMIT 25), 8 clients', rowsOnly);
  const countOnly = await sqlRun((n) => {
    const { count } = statements[n % statements.length];
    return pool.query(count.text, count.values);
  });
  record('q search: SQL count(*) statement alone, 8 clients', countOnly);
  const termMatches: number[] = [];
  for (const { count } of statements) {
    termMatches.push(Number((await pool.query<{ count: string }>(count.text, count.values)).rows[0].count));
  }
  return {
    name: 'Search with q, 8 connections',
    figures: [
      { metric: 'req/s', api: http.okPerSecond, sql: sql.perSecond, kind: 'rate' },
      { metric: 'p50 ms', api: http.latency.p50, sql: sql.latency.p50, kind: 'latency' },
      { metric: 'p95 ms', api: http.latency.p95, sql: sql.latency.p95, kind: 'latency', target: 50 },
    ],
    cpu: { api: http.cpu, sql: sql.cpu },
    runs,
    notes: [],
    termMatches,
  };
}

/** (3) GET /api/samples/?page_size=2000 anonymously, one connection, a fixed number of requests. */
export async function largePage(env: ScenarioEnvironment): Promise<ScenarioReport> {
  const { settings, pool, log } = env;
  const { runs, record } = recorder(log);
  const http = await runHttpLoad({
    url: env.apiUrl,
    connections: 1,
    amount: settings.pageRequests,
    warmup: { amount: 3 },
    hooks: env.hooks,
    requests: [{ method: 'GET', path: '/api/samples/?page_size=2000' }],
  });
  checkHttp('page_size 2000', http);
  record('page_size 2000: API, 1 connection', http);
  const statements = await searchStatements(env.context, {}, 2000);
  const sqlRun = (operation: () => Promise<unknown>) =>
    runSqlLoad({ concurrency: 1, amount: settings.pageRequests, warmup: { amount: 3 }, hooks: env.hooks, operation });
  const sql = await sqlRun(() => searchPage(pool, statements));
  record('page_size 2000: SQL page and count in parallel, 1 client', sql);
  const rowsOnly = await sqlRun(() => pool.query(statements.rows.text, statements.rows.values));
  record('page_size 2000: SQL page statement alone (LIMIT 2000)', rowsOnly);
  const countOnly = await sqlRun(() => pool.query(statements.count.text, statements.count.values));
  record('page_size 2000: SQL count(*) statement alone', countOnly);
  return {
    name: 'Search page_size=2000, 1 connection',
    figures: [
      { metric: 'p50 ms', api: http.latency.p50, sql: sql.latency.p50, kind: 'latency' },
      { metric: 'p95 ms', api: http.latency.p95, sql: sql.latency.p95, kind: 'latency', target: 300 },
    ],
    cpu: { api: http.cpu, sql: sql.cpu },
    runs,
    notes: [],
  };
}

const REGISTER_OBJECT_TYPES = ['Core', 'Individual sample', 'Rock hand sample', 'Powder', 'Dredge', 'Grab'];
const REGISTER_COUNTRIES = ['US', 'CA', 'DE', 'FR', 'GB', 'AU', 'NZ', 'JP', 'IS', 'CY'];

/** A register body like a lab system's: a fifth of them name a collector that already exists. */
function registerBody(code: string, n: number): Record<string, unknown> {
  const lithology = LITHOLOGIES[n % LITHOLOGIES.length];
  const site = SITES[(n * 7) % SITES.length];
  return {
    registry_code: code,
    name: `${lithology} core ${site} bench-${n}`,
    object_type: REGISTER_OBJECT_TYPES[n % REGISTER_OBJECT_TYPES.length],
    latitude: Math.round((Math.random() * 170 - 85) * 1e5) / 1e5,
    longitude: Math.round((Math.random() * 360 - 180) * 1e5) / 1e5,
    elevation: Math.round(Math.random() * 3000),
    elevation_unit: 'meters',
    country: REGISTER_COUNTRIES[n % REGISTER_COUNTRIES.length],
    general_material_type: 'Rock',
    sample_description: `${lithology} core from the ${site} area; fresh surface, no visible alteration.`,
    ...(n % 5 === 0 ? { collectors: [{ individual: { label: 'Marie Tharp' } }] } : {}),
  };
}

/** How many of the database's sessions are running, and how many of those wait for a lock, sampled. */
function sampleLockWaits(pool: Pool): { stop: () => Promise<{ active: number; waitingOnLock: number }> } {
  const samples: { active: number; waiting: number }[] = [];
  let running = true;
  const sampling = (async () => {
    while (running) {
      try {
        const { rows } = await pool.query<{ active: string; waiting: string }>(
          `SELECT count(*) FILTER (WHERE state = 'active') AS active,
                  count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock') AS waiting
             FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        samples.push({ active: Number(rows[0].active), waiting: Number(rows[0].waiting) });
      } catch {
        return; // the pool closed (the bench is stopping)
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await sampling;
      const mean = (pick: (sample: { active: number; waiting: number }) => number) =>
        samples.reduce((sum, sample) => sum + pick(sample), 0) / Math.max(1, samples.length);
      return { active: mean((sample) => sample.active), waitingOnLock: mean((sample) => sample.waiting) };
    },
  };
}

/** (4) POST /api/samples/ with a developer token, 16 connections; IGSNs minted. */
export async function register(env: ScenarioEnvironment): Promise<ScenarioReport> {
  const { settings, pool, log, registrant } = env;
  const { runs, record } = recorder(log);
  const code = registrant.codes[0];
  const accessToken = await registrant.issueAccessToken();
  let next = 0;
  const registerOverHttp = async (connections: number, hooks: LoadHooks) => {
    const http = await runHttpLoad({
      url: env.apiUrl,
      connections,
      durationSeconds: settings.durationSeconds,
      warmup: { durationSeconds: settings.warmupSeconds },
      hooks,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      requests: [
        {
          method: 'POST',
          path: '/api/samples/',
          setupRequest: (request) => ({ ...request, body: JSON.stringify(registerBody(code, next++)) }),
        },
      ],
    });
    checkHttp('register', http);
    return http;
  };
  let locks: { active: number; waitingOnLock: number } | undefined;
  const http = await registerOverHttp(16, {
    beforeWarmup: env.hooks.beforeWarmup,
    watch: () => {
      const cpu = env.hooks.watch?.();
      const sampler = sampleLockWaits(pool);
      return {
        stop: async () => {
          locks = await sampler.stop();
          return cpu?.stop();
        },
      };
    },
  });
  record('Register: API, 16 connections', http);
  if (locks) {
    log(
      `  API sessions active on average: ${locks.active.toFixed(1)}, of which waiting for a lock: ${locks.waitingOnLock.toFixed(1)}`,
    );
  }
  const single = await registerOverHttp(1, env.hooks);
  record('Register: API, 1 connection', single);
  // The same write as one statement: take the next counter value and insert the sample with it.
  const insert = `
    WITH minted AS (
      UPDATE registry_code SET igsn_counter = igsn_counter + 1 WHERE code = $1 RETURNING code, igsn_counter)
    INSERT INTO sample (igsn, registry_code, name, object_type_id, latitude, longitude, elevation, elevation_unit,
                        country, general_material_type, sample_description, metadata_store_status, publish_date,
                        user_owner_id, created_by, created_at, updated_at)
    SELECT ${mintedSuffixSql('m.code', 'm.igsn_counter')}, m.code, $2,
           (SELECT id FROM object_type WHERE lower(label) = lower($3)), $4, $5, $6, 'meters', $7, 'Rock', $8,
           'published', now(), $9, $9, now(), now()
      FROM minted m`;
  const sql = await runSqlLoad({
    concurrency: 16,
    durationSeconds: settings.durationSeconds,
    warmup: { durationSeconds: settings.warmupSeconds },
    hooks: env.hooks,
    operation: (n) => {
      const body = registerBody(code, 1_000_000 + n);
      return pool.query(insert, [
        code,
        body.name,
        body.object_type,
        body.latitude,
        body.longitude,
        body.elevation,
        body.country,
        body.sample_description,
        registrant.userId,
      ]);
    },
  });
  record('Register: SQL, one statement minting and inserting, 16 clients', sql);
  return {
    name: 'Register one sample, 16 connections',
    figures: [
      { metric: 'samples/s', api: http.okPerSecond, sql: sql.perSecond, kind: 'rate', target: 400 },
      { metric: 'p50 ms', api: http.latency.p50, sql: sql.latency.p50, kind: 'latency' },
      { metric: 'p95 ms', api: http.latency.p95, sql: sql.latency.p95, kind: 'latency' },
    ],
    cpu: { api: http.cpu, sql: sql.cpu },
    runs,
    notes: locks
      ? [
          `Register at 16 connections: on average ${locks.active.toFixed(1)} of the API's PostgreSQL sessions were ` +
            `running a statement, ${locks.waitingOnLock.toFixed(1)} of them waiting for a lock (sampled every 100 ms).`,
        ]
      : [],
  };
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statements behind the figures, for the report. */
export async function queryPlans(
  env: ScenarioEnvironment,
  medianTerm: string,
): Promise<{ title: string; plan: string }[]> {
  const { pool, context } = env;
  const [igsn] = await publicIgsns(pool, 1);
  const search = await searchStatements(context, { q: medianTerm }, 25);
  const page = await searchStatements(context, {}, 2000);
  const plans: { title: string; statement: { text: string; values: unknown[] } }[] = [
    { title: `Fetch by IGSN (${igsn})`, statement: { text: `${SAMPLE_SELECT} WHERE s.igsn = $1`, values: [igsn] } },
    { title: `Search q=${medianTerm}: page statement`, statement: search.rows },
    { title: `Search q=${medianTerm}: count statement`, statement: search.count },
    { title: 'page_size=2000: page statement', statement: page.rows },
    { title: 'page_size=2000: count statement', statement: page.count },
  ];
  const result: { title: string; plan: string }[] = [];
  for (const { title, statement } of plans) {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
      statement.values,
    );
    result.push({ title, plan: rows.map((row) => row['QUERY PLAN']).join('\n') });
  }
  return result;
}
