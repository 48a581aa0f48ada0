import { INestApplicationContext } from '@nestjs/common';
import { Pool } from 'pg';
import { CpuShare, LoadHooks } from '../lib/cpu-monitor';
import { ProfileWindow } from '../lib/cpu-profile';
import { formatNumber, markdownTable } from '../lib/markdown';
import { HttpLoadOptions, HttpLoadResult, runHttpLoad } from '../lib/http-load';
import { LatencySummary, percentile } from '../lib/percentiles';
import { runSqlLoad, SqlLoadOptions, SqlLoadResult } from '../lib/sql-load';
import { SampleNameStatistics } from '../../src/modules/samples/sample-name-statistics';
import { LITHOLOGIES, SITES, TERM_TIERS, TermTier, searchTerms } from './generate';
import { BenchSettings, Registrant } from './setup';
import {
  PageStatements,
  Statement,
  exactCountStatement,
  fetchStatement,
  listStatements,
  registerStatement,
  runPage,
  runStatement,
  tokenFetchStatement,
} from './sql-side';

/** One figure of a scenario, measured through the API and (where it has one) straight in SQL. */
export interface Figure {
  metric: string;
  api: number;
  sql?: number;
  /**
   * Higher is better for rates and shares (a percentage of answers), lower for latencies and counts;
   * the target is checked against `api`. Rates are also shown as a ratio to the bare app's fetch rate.
   */
  kind: 'rate' | 'share' | 'latency' | 'count';
  target?: number;
  /** A rate that must also reach this share of the SQL-only rate of the same run (0-1). */
  minShareOfSql?: number;
  /** The same figure from the bare NestJS + pg app (bare-app.ts) in the same run, where it serves one. */
  bare?: number;
  /** A rate that must reach this share of the bare app's fetch rate of the same run (0-1). */
  minShareOfBareFetch?: number;
}

export interface ScenarioReport {
  name: string;
  figures: Figure[];
  /** CPU shares during the measured API run and SQL run behind the figures. */
  cpu: { api?: CpuShare; sql?: CpuShare };
  /** Every measured run: the API and SQL runs behind the figures, then the ones that explain them. */
  runs: Measurement[];
  /** Paragraphs and tables for the report. */
  notes: string[];
}

/** One measured run (over HTTP or straight SQL). */
export interface Measurement {
  label: string;
  /** Requests (or SQL operations) completed. */
  count: number;
  perSecond: number;
  latency: LatencySummary;
  /** Non-2xx answers and connection errors (HTTP), failed operations (SQL). */
  failed: number;
  /** Non-2xx answers by status, and `error` for connections without an answer. */
  failures?: Record<string, number>;
  cpu?: CpuShare;
}

function measured(label: string, result: HttpLoadResult | SqlLoadResult, sqlFailures = 0): Measurement {
  if ('okPerSecond' in result) {
    const failures = { ...result.failures, ...(result.errors ? { error: result.errors } : {}) };
    return {
      label,
      count: result.ok,
      perSecond: result.okPerSecond,
      latency: result.latency,
      failed: result.responses - result.ok + result.errors,
      failures,
      cpu: result.cpu,
    };
  }
  return {
    label,
    count: result.operations,
    perSecond: result.perSecond,
    latency: result.latency,
    failed: sqlFailures,
    cpu: result.cpu,
  };
}

/** CPU milliseconds per request of each process group under test (API process, PostgreSQL backends, bench). */
export function cpuPerRequest(measurement: Measurement): Record<string, number> | undefined {
  const seconds = measurement.cpu?.cpuSeconds;
  if (!seconds || !measurement.count) return undefined;
  return Object.fromEntries(Object.entries(seconds).map(([group, used]) => [group, (1000 * used) / measurement.count]));
}

/** An HTTP or SQL run's outcome as a scenario sees it. */
type Run<R> = { result: R; measurement: Measurement };

export interface ScenarioEnvironment {
  settings: BenchSettings;
  apiUrl: string;
  /** API processes behind `apiUrl` (BENCH_API_PROCESSES): named in the labels of the API runs when above one. */
  apiProcesses: number;
  /**
   * Runs that do not involve the API under test (the bare app, the SQL side), by label: measured once
   * per bench run and reused when a scenario runs again with another number of API processes.
   */
  sideRuns: Map<string, Run<HttpLoadResult> | Run<SqlLoadResult>>;
  /** The bare NestJS + pg app serving the same fetch and list statements (bare-app.ts). */
  bareUrl: string;
  /**
   * Figures of the bare app measured so far in this run: every rate is reported as a ratio to its
   * fetch rate, the mean of its runs (`fetchRuns`, one before and one after the API's fetch runs).
   */
  baseline: { fetchPerSecond?: number; fetchRuns?: number[] };
  /** pg pool of the bench process for the SQL side (sized for the largest concurrency × 2). */
  pool: Pool;
  context: INestApplicationContext;
  registrant: Registrant;
  /** Wait for a quiet machine before each warm-up; watch CPU shares during each measured run. */
  hooks: LoadHooks;
  log: (line: string) => void;
  /** With BENCH_CPU_PROFILE: the bounds of every measured API run, to cut the API's profile by. */
  profileWindows?: ProfileWindow[];
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

function describe(log: (line: string) => void, measurement: Measurement): void {
  const { cpu, latency } = measurement;
  const perRequest = cpuPerRequest(measurement);
  log(
    `  ${measurement.label}: ${measurement.perSecond.toFixed(1)}/s, p50 ${latency.p50.toFixed(1)} ms, ` +
      `p95 ${latency.p95.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms (${measurement.count} ok` +
      (measurement.failed ? `, ${measurement.failed} failed ${JSON.stringify(measurement.failures ?? {})}` : '') +
      (cpu ? `; machine ${cpu.machineBusy.toFixed(0)}% busy, other work ${cpu.foreign.toFixed(0)}%` : '') +
      (perRequest
        ? `; CPU ms per request: ${Object.entries(perRequest)
            .map(([group, ms]) => `${group} ${ms.toFixed(2)}`)
            .join(', ')}`
        : '') +
      ')',
  );
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** Records when the measured part of a run starts and ends (the hooks' watch), on the profile's clock. */
function profiled(hooks: LoadHooks | undefined, label: string, windows: ProfileWindow[]): LoadHooks {
  return {
    beforeWarmup: hooks?.beforeWarmup,
    watch: () => {
      const startMicros = monotonicMicros();
      const inner = hooks?.watch?.();
      return {
        stop: async () => {
          windows.push({ label, startMicros, endMicros: monotonicMicros() });
          return inner?.stop();
        },
      };
    },
  };
}

/**
 * A scenario's measuring kit: HTTP and SQL runs with the environment's settings and hooks, each
 * logged and kept for the report as it completes.
 */
function kit(env: ScenarioEnvironment) {
  const { settings, hooks, log } = env;
  const runs: Measurement[] = [];
  const keep = (measurement: Measurement) => {
    describe(log, measurement);
    runs.push(measurement);
    return measurement;
  };
  const timed = { durationSeconds: settings.durationSeconds, warmup: { durationSeconds: settings.warmupSeconds } };
  /** A run measured earlier in this bench run under the same label, without the API under test. */
  const measuredBefore = <R>(label: string) => {
    const earlier = env.sideRuns.get(label) as Run<R> | undefined;
    if (earlier) log(`  ${label}: measured earlier in this run (${earlier.measurement.perSecond.toFixed(1)}/s)`);
    return earlier;
  };
  return {
    runs,
    /**
     * An HTTP run (timed unless `amount` is given); `strict` refuses more than 1% failures. Runs
     * against another URL than the API's (the bare app) are measured once per bench run.
     */
    http: async (
      name: string,
      options: Omit<HttpLoadOptions, 'url' | 'warmup' | 'hooks'> &
        Partial<Pick<HttpLoadOptions, 'url' | 'warmup' | 'hooks'>>,
      strict = true,
    ): Promise<Run<HttpLoadResult>> => {
      const load = { url: env.apiUrl, hooks, ...timed, ...options };
      const ofApi = load.url === env.apiUrl;
      const label = ofApi && env.apiProcesses > 1 ? `${name} (${env.apiProcesses} API processes)` : name;
      const earlier = ofApi ? undefined : measuredBefore<HttpLoadResult>(label);
      if (earlier) return earlier;
      if (env.profileWindows && ofApi) load.hooks = profiled(load.hooks, label, env.profileWindows);
      const result = await runHttpLoad(load);
      const window = env.profileWindows?.find((candidate) => candidate.label === label);
      if (window) window.requests = result.responses;
      if (strict) checkHttp(label, result);
      const run = { result, measurement: keep(measured(label, result)) };
      if (!ofApi) env.sideRuns.set(label, run);
      return run;
    },
    /**
     * A SQL run at `concurrency`; failed operations are counted, not thrown. Measured once per bench
     * run: a scenario run again with another number of API processes reuses it.
     */
    sql: async (
      label: string,
      concurrency: number,
      operation: (n: number) => Promise<unknown>,
      options: Partial<Pick<SqlLoadOptions, 'amount' | 'warmup' | 'durationSeconds'>> = {},
    ): Promise<Run<SqlLoadResult>> => {
      const earlier = measuredBefore<SqlLoadResult>(label);
      if (earlier) return earlier;
      let failures = 0;
      const result = await runSqlLoad({
        concurrency,
        hooks,
        ...timed,
        ...options,
        operation: (n) =>
          operation(n).catch(() => {
            failures += 1;
          }),
      });
      const run = { result, measurement: keep(measured(label, result, failures)) };
      env.sideRuns.set(label, run);
      return run;
    },
  };
}

/** Random public IGSNs to fetch, so the API and SQL sides read the same spread of rows. */
async function publicIgsns(pool: Pool, count: number): Promise<string[]> {
  // SYSTEM sampling reads ~100,000 rows' worth of pages whatever the size of the table.
  const { rows: size } = await pool.query<{ tuples: number }>(
    "SELECT greatest(reltuples, 1) AS tuples FROM pg_class WHERE oid = 'sample'::regclass",
  );
  const percent = Math.min(100, Math.max(0.01, (100 * 100_000) / Math.max(1, Number(size[0]?.tuples ?? 1))));
  const { rows } = await pool.query<{ igsn: string }>(
    `SELECT igsn FROM sample TABLESAMPLE SYSTEM (${percent.toFixed(4)}) REPEATABLE (7)
      WHERE metadata_store_status = 'published' AND NOT is_deactivated AND publish_date <= now()
      ORDER BY random() LIMIT $1`,
    [count],
  );
  return rows.map((row) => row.igsn);
}

/** The token pair (`sid` claim) behind an access token, for the SQL side of bearer authentication. */
function tokenPairId(accessToken: string): string {
  const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    sid?: unknown;
  };
  if (typeof claims.sid !== 'string') throw new Error('The access token has no sid claim.');
  return claims.sid;
}

/**
 * (1) GET /api/samples/{igsn}/, 16 connections, over 10,000 random public IGSNs: anonymously, and
 * with a developer access token. SQL side: the fetch statement; with a token, the token check and
 * then the fetch, as one request runs them.
 */
export async function fetchByIgsn(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { pool } = env;
  const { runs, http, sql } = kit(env);
  const igsns = await publicIgsns(pool, 10_000);
  const path = (n: number) => `/api/samples/${igsns[n % igsns.length]}/`;
  let next = 0;
  const request = { method: 'GET' as const, setupRequest: (r: object) => ({ ...r, path: path(next++) }) };
  // The bare app before and after the API's runs, its rate their mean: a machine whose speed drifts
  // within minutes (seen: the same bare app 2,942-3,646/s in three runs) moves both sides alike.
  let nextBare = 0;
  const bareRun = (when: string) =>
    http(`Fetch: bare NestJS + pg app, 16 connections (${when})`, {
      url: env.bareUrl,
      connections: 16,
      requests: [
        {
          method: 'GET',
          setupRequest: (r) => ({ ...r, path: `/samples/${encodeURIComponent(igsns[nextBare++ % igsns.length])}` }),
        },
      ],
    });
  const bareBefore = await bareRun('before the API');
  const anonymous = await http('Fetch: API anonymous, 16 connections', { connections: 16, requests: [request] });
  const plain = await sql('Fetch: SQL fetch statement, 16 clients', 16, (n) =>
    runStatement(pool, fetchStatement(igsns[n % igsns.length])),
  );
  // The runs measured so far are the anonymous fetch's (the bare and SQL ones only when measured now).
  const anonymousRuns = runs.length;
  const accessToken = await env.registrant.issueAccessToken();
  const withToken = await http('Fetch: API with a bearer token, 16 connections', {
    connections: 16,
    headers: { authorization: `Bearer ${accessToken}` },
    requests: [request],
  });
  const sid = tokenPairId(accessToken);
  const checked = await sql('Fetch: SQL fetch statement with the token check, 16 clients', 16, (n) =>
    runStatement(pool, tokenFetchStatement(igsns[n % igsns.length], sid)),
  );
  const bareAfter = await bareRun('after the API');
  const bareRuns = [bareBefore.result, bareAfter.result];
  const mean = (figure: (result: HttpLoadResult) => number) =>
    bareRuns.reduce((sum, result) => sum + figure(result), 0) / bareRuns.length;
  const bare = {
    okPerSecond: mean((r) => r.okPerSecond),
    p50: mean((r) => r.latency.p50),
    p99: mean((r) => r.latency.p99),
  };
  env.baseline.fetchPerSecond = bare.okPerSecond;
  env.baseline.fetchRuns = bareRuns.map((result) => result.okPerSecond);
  // Targets (issue 23): ≥ 70 % of the bare app's fetch rate anonymously, ≥ 60 % with a token.
  const figures = (api: HttpLoadResult, side: SqlLoadResult, minShareOfBareFetch: number): Figure[] => [
    {
      metric: 'req/s',
      api: api.okPerSecond,
      sql: side.perSecond,
      bare: bare.okPerSecond,
      kind: 'rate',
      minShareOfBareFetch,
    },
    { metric: 'p50 ms', api: api.latency.p50, sql: side.latency.p50, bare: bare.p50, kind: 'latency' },
    { metric: 'p99 ms', api: api.latency.p99, sql: side.latency.p99, bare: bare.p99, kind: 'latency' },
  ];
  return [
    {
      name: 'Fetch by IGSN, anonymous, 16 connections',
      figures: figures(anonymous.result, plain.result, 0.7),
      cpu: { api: anonymous.result.cpu, sql: plain.result.cpu },
      runs: runs.slice(0, anonymousRuns),
      notes: [],
    },
    {
      name: 'Fetch by IGSN, bearer token, 16 connections',
      figures: figures(withToken.result, checked.result, 0.6),
      cpu: { api: withToken.result.cpu, sql: checked.result.cpu },
      runs: runs.slice(anonymousRuns),
      notes: [],
    },
  ];
}

/** The first pages of the anonymous list, 25 a page: a different answer each time, not one cached page. */
export const LIST_PAGES = [1, 2, 3, 4, 5];

function listPath(page: number, pageSize: number): string {
  return `/api/samples/?page_size=${pageSize}&page=${page}`;
}

/** (2) GET /api/samples/?page_size=25&page=1…5 anonymously, 16 connections. */
export async function publicList(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { pool } = env;
  const { runs, http, sql } = kit(env);
  let next = 0;
  const cacheBefore = await listCacheCounts(env);
  const api = await http('List: API page_size=25, pages 1-5, 16 connections', {
    connections: 16,
    requests: [
      {
        method: 'GET',
        setupRequest: (r) => ({ ...r, path: listPath(LIST_PAGES[next++ % LIST_PAGES.length], 25) }),
      },
    ],
  });
  const cacheAfter = await listCacheCounts(env);
  let nextBare = 0;
  const bare = await http('List: bare NestJS + pg app, pages 1-5, 16 connections', {
    url: env.bareUrl,
    connections: 16,
    requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: `/samples?page=${LIST_PAGES[nextBare++ % 5]}` }) }],
  });
  const statements = await Promise.all(
    LIST_PAGES.map((page) => listStatements(env.context, {}, { page, pageSize: 25 })),
  );
  const side = await sql('List: SQL page and count in parallel, pages 1-5, 16 clients', 16, (n) =>
    runPage(pool, statements[n % statements.length]),
  );
  return [
    {
      name: 'Public list, page_size=25, 16 connections',
      figures: [
        // Targets (issue 23): ≥ 50 % of the bare app's fetch rate, p99 ≤ 30 ms.
        {
          metric: 'req/s',
          api: api.result.okPerSecond,
          sql: side.result.perSecond,
          bare: bare.result.okPerSecond,
          kind: 'rate',
          minShareOfBareFetch: 0.5,
        },
        {
          metric: 'p50 ms',
          api: api.result.latency.p50,
          sql: side.result.latency.p50,
          bare: bare.result.latency.p50,
          kind: 'latency',
        },
        {
          metric: 'p99 ms',
          api: api.result.latency.p99,
          sql: side.result.latency.p99,
          bare: bare.result.latency.p99,
          kind: 'latency',
          target: 30,
        },
      ],
      cpu: { api: api.result.cpu, sql: side.result.cpu },
      runs,
      notes: [listCacheNote('The API list run', cacheBefore, cacheAfter)],
    },
  ];
}

/** The `ETag` the API answers each path with now (anonymously), fetched 8 at a time; throws without one. */
async function currentEtags(apiUrl: string, paths: string[]): Promise<string[]> {
  const etags: string[] = new Array<string>(paths.length);
  let next = 0;
  const client = async () => {
    for (let i = next++; i < paths.length; i = next++) {
      const response = await fetch(`${apiUrl}${paths[i]}`);
      await response.arrayBuffer();
      const etag = response.headers.get('etag');
      if (response.status !== 200 || !etag) {
        throw new Error(`GET ${paths[i]} answered ${response.status} without an ETag: nothing to revalidate.`);
      }
      etags[i] = etag;
    }
  };
  await Promise.all(Array.from({ length: 8 }, client));
  return etags;
}

/**
 * (2b) HTTP caching (issue 23 §5): clients that hold a copy send `If-None-Match` with its `ETag`.
 * Anonymous fetches over 2,000 random public IGSNs and list pages 1-5, 16 connections, each request
 * carrying the tag the API gave that URL just before: every answer should be a 304 without a body.
 * Reported: 304s per second (and as a ratio to the bare app's fetch, which serves full bodies), the
 * share of answers that were 304s (anything else is a miss: the tag changed or was not honoured), p99.
 */
export async function revalidate(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { pool } = env;
  const { runs, http } = kit(env);
  const fetchPaths = (await publicIgsns(pool, 2_000)).map((igsn) => `/api/samples/${igsn}/`);
  const listPaths = LIST_PAGES.map((page) => listPath(page, 25));
  const conditional = async (label: string, paths: string[]) => {
    const etags = await currentEtags(env.apiUrl, paths);
    let next = 0;
    const { result } = await http(
      label,
      {
        connections: 16,
        served: (status) => status === 304,
        requests: [
          {
            method: 'GET',
            setupRequest: (r) => {
              const i = next++ % paths.length;
              return { ...r, path: paths[i], headers: { ...r.headers, 'if-none-match': etags[i] } };
            },
          },
        ],
      },
      false,
    );
    return result;
  };
  const fetches = await conditional('Revalidate: API fetch with If-None-Match, 16 connections', fetchPaths);
  const pages = await conditional('Revalidate: API list pages 1-5 with If-None-Match, 16 connections', listPaths);
  // Misses (200s, errors) count against the share; a 100 % share is the target: tags are stable while nothing changes.
  const share = (result: HttpLoadResult) => (100 * result.ok) / Math.max(1, result.responses + result.errors);
  const figures = (what: string, result: HttpLoadResult): Figure[] => [
    { metric: `${what}: 304/s`, api: result.okPerSecond, kind: 'rate' },
    { metric: `${what}: answers that were 304, %`, api: share(result), kind: 'share', target: 100 },
    { metric: `${what}: p50 ms`, api: result.latency.p50, kind: 'latency' },
    { metric: `${what}: p99 ms`, api: result.latency.p99, kind: 'latency' },
  ];
  return [
    {
      name: 'Revalidation with If-None-Match, anonymous, 16 connections',
      figures: [...figures('fetch', fetches), ...figures('list', pages)],
      cpu: { api: fetches.cpu },
      runs,
      notes: [
        `Each request carried the \`ETag\` the API had just answered for its URL (${fetchPaths.length} public ` +
          `samples; list pages ${LIST_PAGES.join(', ')} of 25): 304s per second, the share of answers that were 304 ` +
          '(a 200 or an error is a miss), latency of the 304s. No SQL side: what a 304 costs the database is the ' +
          "API's own business (see the PostgreSQL CPU ms per request in the runs table).",
      ],
    },
  ];
}

/** `q` terms of every tier interleaved (common, medium, rare, common, …), so a run is an even mix. */
function mixedTerms(): { term: string; tier: TermTier }[] {
  const tiers = TERM_TIERS.map((tier) => searchTerms(tier).map((term) => ({ term, tier })));
  const longest = Math.max(...tiers.map((list) => list.length));
  return Array.from({ length: longest }, (_, i) => tiers.map((list) => list[i % list.length])).flat();
}

function searchPath(term: string): string {
  return `/api/samples/?q=${encodeURIComponent(term)}&page_size=25`;
}

export interface TermMatches {
  tier: TermTier;
  matches: number[];
}

/** Public samples each term of a tier matches (exact count), for the report. */
async function termMatches(env: ScenarioEnvironment): Promise<TermMatches[]> {
  const result: TermMatches[] = [];
  for (const tier of TERM_TIERS) {
    const matches: number[] = [];
    for (const q of searchTerms(tier)) {
      const statement = await exactCountStatement(env.context, { q });
      matches.push(Number((await runStatement(env.pool, statement)).rows[0].count));
    }
    result.push({ tier, matches });
  }
  return result;
}

/**
 * (3) GET /api/samples/?q=<term>, 25 a page, anonymously: an even mix of common, medium and rare
 * terms; p95 at 8 connections, req/s at 16; then each tier alone at 8 connections.
 */
export async function searchWithQ(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { pool } = env;
  const { runs, http, sql } = kit(env);
  const mix = mixedTerms();
  const statements = new Map<string, PageStatements>();
  // The statements as an API process builds them once it has sampled the names (name-trigrams.ts).
  await env.context.get(SampleNameStatistics).refresh();
  for (const { term } of mix) {
    statements.set(term, await listStatements(env.context, { q: term }, { page: 1, pageSize: 25 }));
  }
  const overHttp = (label: string, connections: number, terms: string[]) => {
    let next = 0;
    return http(label, {
      connections,
      requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: searchPath(terms[next++ % terms.length]) }) }],
    });
  };
  const inSql = (label: string, concurrency: number, terms: string[]) =>
    sql(label, concurrency, (n) => runPage(pool, statements.get(terms[n % terms.length]) as PageStatements));
  const all = mix.map(({ term }) => term);
  const api8 = await overHttp('q search: API, mixed terms, 8 connections', 8, all);
  const sql8 = await inSql('q search: SQL page and count, mixed terms, 8 clients', 8, all);
  const api16 = await overHttp('q search: API, mixed terms, 16 connections', 16, all);
  const sql16 = await inSql('q search: SQL page and count, mixed terms, 16 clients', 16, all);
  const tierFigures: Figure[] = [];
  for (const tier of TERM_TIERS) {
    const terms = searchTerms(tier);
    const api = await overHttp(`q search: API, ${tier} terms only, 8 connections`, 8, terms);
    const side = await inSql(`q search: SQL page and count, ${tier} terms only, 8 clients`, 8, terms);
    tierFigures.push({
      metric: `p95 ms, ${tier} terms, 8`,
      api: api.result.latency.p95,
      sql: side.result.latency.p95,
      kind: 'latency',
    });
  }
  const matches = await termMatches(env);
  return [
    {
      name: 'q search, 25 a page, mixed terms',
      figures: [
        {
          metric: 'p95 ms at 8',
          api: api8.result.latency.p95,
          sql: sql8.result.latency.p95,
          kind: 'latency',
          target: 50,
        },
        {
          metric: 'req/s at 16',
          api: api16.result.okPerSecond,
          sql: sql16.result.perSecond,
          kind: 'rate',
          target: 300,
        },
        { metric: 'p95 ms at 16', api: api16.result.latency.p95, sql: sql16.result.latency.p95, kind: 'latency' },
        ...tierFigures,
      ],
      cpu: { api: api8.result.cpu, sql: sql8.result.cpu },
      runs,
      notes: [
        '`q` terms (an even mix of the three tiers in the mixed runs; public samples matched per term, exact):',
        '',
        ...matches.map(
          ({ tier, matches: counts }) =>
            `- ${tier}: ${searchTerms(tier).length} terms, e.g. ${searchTerms(tier)
              .slice(0, 3)
              .map((term) => `\`${term}\``)
              .join(', ')}; matches min ${Math.min(...counts).toLocaleString('en')}, median ` +
            `${percentile(counts, 50).toLocaleString('en')}, max ${Math.max(...counts).toLocaleString('en')}`,
        ),
        '',
        "Text searches are never answered from the API's kept list pages (LIST_CACHE_SECONDS): every `q` request searched.",
      ],
    },
  ];
}

/** (4) GET /api/samples/?page_size=2000 anonymously, one connection, a fixed number of requests. */
export async function largePage(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { settings, pool } = env;
  const { runs, http, sql } = kit(env);
  const fixed = { amount: settings.pageRequests, warmup: { amount: 3 } };
  const api = await http('page_size 2000: API, 1 connection', {
    connections: 1,
    ...fixed,
    requests: [{ method: 'GET', path: listPath(1, 2000) }],
  });
  const statements = await listStatements(env.context, {}, { page: 1, pageSize: 2000 });
  const side = await sql(
    'page_size 2000: SQL page and count in parallel, 1 client',
    1,
    () => runPage(pool, statements),
    fixed,
  );
  await sql('page_size 2000: SQL page statement alone', 1, () => runStatement(pool, statements.rows), fixed);
  await sql('page_size 2000: SQL count statement alone', 1, () => runStatement(pool, statements.count), fixed);
  return [
    {
      name: 'page_size=2000, 1 connection',
      figures: [
        { metric: 'p50 ms', api: api.result.latency.p50, sql: side.result.latency.p50, kind: 'latency' },
        { metric: 'p95 ms', api: api.result.latency.p95, sql: side.result.latency.p95, kind: 'latency', target: 150 },
      ],
      cpu: { api: api.result.cpu, sql: side.result.cpu },
      runs,
      notes: [],
    },
  ];
}

const REGISTER_OBJECT_TYPES = ['Core', 'Individual sample', 'Rock hand sample', 'Powder', 'Dredge', 'Grab'];
const REGISTER_COUNTRIES = ['US', 'CA', 'DE', 'FR', 'GB', 'AU', 'NZ', 'JP', 'IS', 'CY'];

/** A register body like a lab system's: a fifth of them name a collector that already exists. */
export function registerBody(code: string, n: number): Record<string, unknown> {
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

/** The samples of one metric on the API's /metrics (with several API processes, their sum), with their labels as text. */
async function apiMetric(env: ScenarioEnvironment, name: string): Promise<{ labels: string; value: number }[]> {
  const response = await fetch(`${env.apiUrl}/metrics`, {
    headers: { authorization: `Bearer ${env.settings.metricsToken}` },
  });
  if (!response.ok) throw new Error(`GET /metrics of the API answered ${response.status}`);
  const samples: { labels: string; value: number }[] = [];
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith(name) || !/^[{ ]/.test(line.slice(name.length))) continue;
    const labels = line.startsWith('{', name.length) ? line.slice(name.length, line.indexOf('}') + 1) : '';
    samples.push({ labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) });
  }
  return samples;
}

type ListCacheCounts = Record<'hit' | 'joined' | 'miss', number>;

/** Anonymous list requests the API answered so far, by how (list_cache_requests_total; LIST_CACHE_SECONDS). */
async function listCacheCounts(env: ScenarioEnvironment): Promise<ListCacheCounts> {
  const counts: ListCacheCounts = { hit: 0, joined: 0, miss: 0 };
  for (const { labels, value } of await apiMetric(env, 'list_cache_requests_total')) {
    const result = /result="(\w+)"/.exec(labels)?.[1];
    if (result === 'hit' || result === 'joined' || result === 'miss') counts[result] += value;
  }
  return counts;
}

/**
 * How many of the anonymous list requests between two readings the API answered without searching:
 * the API runs with the default LIST_CACHE_SECONDS (1 s), so repeats of a URL within a second are
 * served from the page kept in the process (or join the search in flight for it).
 */
function listCacheNote(what: string, before: ListCacheCounts, after: ListCacheCounts): string {
  const hits = after.hit - before.hit;
  const joined = after.joined - before.joined;
  const misses = after.miss - before.miss;
  const total = hits + joined + misses;
  const share = total ? ((100 * (hits + joined)) / total).toFixed(1) : '0';
  return (
    `${what}: ${formatNumber(total)} anonymous list requests (warm-up included, list_cache_requests_total on the ` +
    `API's /metrics), ${share} % answered without a search (${formatNumber(hits)} from a kept page, ` +
    `${formatNumber(joined)} joined a search in flight for the same URL), ${formatNumber(misses)} searched. ` +
    'The API runs with the default LIST_CACHE_SECONDS=1 (docs/api-conventions.md, HTTP caching).'
  );
}

interface RegistrationReading {
  statements: number;
  newestId: number;
}

/**
 * Where the registration counters stand: the statements the API has sent (db_statements_total on
 * its /metrics, summed over its pools; with several API processes /metrics answers their sum) and
 * the newest sample id.
 */
async function readRegistrations(env: ScenarioEnvironment): Promise<RegistrationReading> {
  let statements = 0;
  for (const { value } of await apiMetric(env, 'db_statements_total')) statements += value;
  const { rows } = await env.pool.query<{ id: string | null }>('SELECT max(id) AS id FROM sample');
  return { statements, newestId: Number(rows[0].id ?? 0) };
}

/**
 * The statements a reading of /metrics makes the API send itself (its gauges that query the
 * database, e.g. the DOI backlog): two readings in a row with nothing else running.
 */
async function statementsPerReading(env: ScenarioEnvironment): Promise<number> {
  const first = await readRegistrations(env);
  const second = await readRegistrations(env);
  return second.statements - first.statements;
}

/**
 * The statements the API sent since `before` for the registrations, and per sample stored since
 * then: one reading's own statements (`perReading`) fall between the two counts, and are not the
 * registrations'.
 */
async function registrationCost(env: ScenarioEnvironment, before: RegistrationReading, perReading: number) {
  const after = await readRegistrations(env);
  const { rows } = await env.pool.query<{ stored: string }>('SELECT count(*) AS stored FROM sample WHERE id > $1', [
    before.newestId,
  ]);
  const registrations = Number(rows[0].stored);
  const statements = after.statements - before.statements - perReading;
  return { statements, registrations, perRegistration: registrations ? statements / registrations : Number.NaN };
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

/** (5) POST /api/samples/ with a developer token, 16 connections; IGSNs minted. */
export async function register(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { pool, registrant } = env;
  const { runs, http, sql } = kit(env);
  const code = registrant.codes[0];
  const accessToken = await registrant.issueAccessToken();
  let next = 0;
  const registerOptions = (connections: number) => ({
    connections,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    requests: [
      {
        method: 'POST' as const,
        path: '/api/samples/',
        setupRequest: (r: object) => ({ ...r, body: JSON.stringify(registerBody(code, next++)) }),
      },
    ],
  });
  let locks: { active: number; waitingOnLock: number } | undefined;
  const perReading = await statementsPerReading(env);
  const before = await readRegistrations(env);
  const api = await http('Register: API, 16 connections', {
    ...registerOptions(16),
    hooks: {
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
    },
  });
  const cost = await registrationCost(env, before, perReading);
  // One connection: the common path alone, every reference known since the run above (no two
  // registrations at once, so none mints a number another is inserting).
  const beforeOne = await readRegistrations(env);
  await http('Register: API, 1 connection', registerOptions(1));
  const costOne = await registrationCost(env, beforeOne, perReading);
  const side = await sql('Register: SQL, one statement minting and inserting, 16 clients', 16, (n) => {
    const body = registerBody(code, 1_000_000 + n);
    return runStatement(
      pool,
      registerStatement({
        code,
        name: String(body.name),
        objectType: String(body.object_type),
        latitude: Number(body.latitude),
        longitude: Number(body.longitude),
        elevation: Number(body.elevation),
        country: String(body.country),
        description: String(body.sample_description),
        userId: registrant.userId,
      }),
    );
  });
  return [
    {
      name: 'Register one sample, 16 connections',
      figures: [
        { metric: 'samples/s', api: api.result.okPerSecond, sql: side.result.perSecond, kind: 'rate', target: 600 },
        { metric: 'p50 ms', api: api.result.latency.p50, sql: side.result.latency.p50, kind: 'latency' },
        { metric: 'p95 ms', api: api.result.latency.p95, sql: side.result.latency.p95, kind: 'latency' },
        { metric: 'statements per registration', api: cost.perRegistration, sql: 1, kind: 'count' },
        {
          metric: 'statements per registration, 1 connection (common path)',
          api: costOne.perRegistration,
          sql: 1,
          kind: 'count',
          target: 4,
        },
      ],
      cpu: { api: api.result.cpu, sql: side.result.cpu },
      runs,
      notes: [
        `Statements per registration: ${formatNumber(cost.statements)} statements sent by the API ` +
          `(db_statements_total on its /metrics, every pool and process) over the 16-connection run and its ` +
          `warm-up, for ${formatNumber(cost.registrations)} samples stored — every statement of the request ` +
          'counts, the bearer-token check included; the ' +
          `${formatNumber(perReading)} statements a reading of /metrics sends itself (its database gauges) do not. ` +
          `The common path (issue 23: named references already known) is the 1-connection run after it: ` +
          `${formatNumber(costOne.statements)} statements for ${formatNumber(costOne.registrations)} samples.`,
        ...(locks
          ? [
              `Register at 16 connections: on average ${locks.active.toFixed(1)} of the API's PostgreSQL sessions were ` +
                `running a statement, ${locks.waitingOnLock.toFixed(1)} of them waiting for a lock (sampled every 100 ms).`,
            ]
          : []),
      ],
    },
  ];
}

/** The tables the generator loads, whose planner statistics the cold scenario removes. */
const LOADED_TABLES = ['sample', 'sample_collector'];

/**
 * Puts the loaded tables back where a bulk load leaves them before any ANALYZE (autovacuum is off
 * on these machines): no column statistics for the tables or their expression indexes, and
 * `reltuples` -1 and `relpages` 0, what PostgreSQL 14+ keeps for a table never vacuumed or
 * analysed, so the planner guesses sizes from the file length. Needs a superuser. The cumulative
 * statistics (pg_stat_user_tables) are left alone, and no worker runs in this bench: what is
 * measured is the plans the API gets without statistics, not how soon the application restores them.
 */
async function forgetStatistics(pool: Pool): Promise<void> {
  const relations = `
    SELECT c.oid FROM pg_class c WHERE c.oid = ANY($1::regclass[])
    UNION SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = ANY($1::regclass[])`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`DELETE FROM pg_statistic WHERE starelid IN (${relations})`, [LOADED_TABLES]);
    await client.query(
      `UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 WHERE oid IN (${relations})`,
      [LOADED_TABLES],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/**
 * (6) The list and page_size=2000 right after loading, before any ANALYZE (statistics removed as
 * above), then again after ANALYZE. Failures are counted, not refused: a 500 here is a finding.
 */
export async function coldStatistics(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { settings, pool, log } = env;
  const { runs, http, sql } = kit(env);
  const list = await Promise.all(LIST_PAGES.map((page) => listStatements(env.context, {}, { page, pageSize: 25 })));
  const large = await listStatements(env.context, {}, { page: 1, pageSize: 2000 });
  const plans: { title: string; plan: string }[] = [];
  const measure = async (when: string) => {
    let next = 0;
    const cacheBefore = await listCacheCounts(env);
    const listApi = await http(
      `List ${when}: API page_size=25, pages 1-5, 16 connections`,
      {
        connections: 16,
        timeoutSeconds: 70,
        requests: [
          {
            method: 'GET',
            setupRequest: (r) => ({ ...r, path: listPath(LIST_PAGES[next++ % LIST_PAGES.length], 25) }),
          },
        ],
      },
      false,
    );
    const cache = listCacheNote(`List ${when}`, cacheBefore, await listCacheCounts(env));
    const listSql = await sql(`List ${when}: SQL page and count, 16 clients`, 16, (n) =>
      runPage(pool, list[n % list.length]),
    );
    // Each request may run up to the statement timeout (60 s) without statistics: few, on one connection.
    const fixed = { amount: settings.coldPageRequests, warmup: { amount: 1 } };
    const largeApi = await http(
      `page_size 2000 ${when}: API, 1 connection`,
      { connections: 1, timeoutSeconds: 70, ...fixed, requests: [{ method: 'GET', path: listPath(1, 2000) }] },
      false,
    );
    const largeSql = await sql(
      `page_size 2000 ${when}: SQL page and count, 1 client`,
      1,
      () => runPage(pool, large),
      fixed,
    );
    return { listApi, listSql, largeApi, largeSql, cache };
  };
  const explain = async (title: string, statement: Statement) => {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values);
    plans.push({ title, plan: rows.map((row) => row['QUERY PLAN']).join('\n') });
  };

  await forgetStatistics(pool);
  log('  planner statistics of sample and sample_collector removed');
  await explain('List page 1 without statistics: page statement (estimates only)', list[0].rows);
  await explain('page_size=2000 without statistics: count statement (estimates only)', large.count);
  const cold = await measure('before ANALYZE');
  const began = performance.now();
  await pool.query(`ANALYZE ${LOADED_TABLES.join(', ')}`);
  const analyseSeconds = (performance.now() - began) / 1000;
  log(`  ANALYZE ${LOADED_TABLES.join(', ')}: ${analyseSeconds.toFixed(1)} s`);
  const warm = await measure('after ANALYZE');

  const figures = (when: string, m: typeof cold): Figure[] => [
    {
      metric: `list req/s, ${when}`,
      api: m.listApi.result.okPerSecond,
      sql: m.listSql.result.perSecond,
      kind: 'rate',
      target: 1500,
    },
    {
      metric: `list p99 ms, ${when}`,
      api: m.listApi.result.latency.p99,
      sql: m.listSql.result.latency.p99,
      kind: 'latency',
      target: 30,
    },
    {
      metric: `page_size=2000 p95 ms, ${when}`,
      api: m.largeApi.result.latency.p95,
      sql: m.largeSql.result.latency.p95,
      kind: 'latency',
      target: 150,
    },
    {
      metric: `failed requests, ${when}`,
      api: m.listApi.measurement.failed + m.largeApi.measurement.failed,
      sql: m.listSql.measurement.failed + m.largeSql.measurement.failed,
      kind: 'latency',
      target: 0,
    },
  ];
  // A run whose requests all outlast it answers none: say so rather than show an empty p99.
  const failures = (m: typeof cold) =>
    `${m.listApi.measurement.count} list answers, ${m.largeApi.measurement.count} page_size=2000 answers, ` +
    JSON.stringify({ list: m.listApi.measurement.failures, page_size_2000: m.largeApi.measurement.failures });
  return [
    {
      name: 'Right after loading, before any ANALYZE; then after ANALYZE',
      figures: [...figures('no statistics', cold), ...figures('after ANALYZE', warm)],
      cpu: { api: cold.listApi.result.cpu, sql: cold.listSql.result.cpu },
      runs,
      notes: [
        `Before ANALYZE: the planner statistics of ${LOADED_TABLES.join(' and ')} and their indexes removed ` +
          '(pg_statistic rows deleted; reltuples -1, relpages 0, relallvisible 0, as for a table never vacuumed ' +
          `or analysed). 2xx answers, then non-2xx answers and errors by status: before ${failures(cold)}; after ${failures(warm)}. ` +
          `ANALYZE took ${analyseSeconds.toFixed(1)} s. page_size=2000: ${settings.coldPageRequests} requests ` +
          '(BENCH_COLD_PAGE_REQUESTS) after 1 warm-up; the API and SQL sides have a 60 s statement timeout.',
        cold.cache,
        warm.cache,
        ...plans.flatMap(({ title, plan }) => [`${title}:`, '', '```text', plan, '```']),
      ],
    },
  ];
}

/** Milliseconds one run of `statement` takes, the median of `times` runs. */
async function medianMs(pool: Pool, statement: Statement, times: number): Promise<number> {
  const durations: number[] = [];
  for (let i = 0; i < times; i++) {
    const began = performance.now();
    await runStatement(pool, statement);
    durations.push(performance.now() - began);
  }
  return percentile(durations, 50);
}

/** Above this many matching rows a count is always an estimate flagged `count_exact: false` (ADR 0001, 0010). */
const EXACT_COUNT_LIMIT = 10_000;

/**
 * (7) What the answers carry as `count` (and `count_exact`, absent while counts are always exact)
 * for the list and a term of each `q` tier, beside the exact number; how long the API takes for
 * the page and how long the app's count statement takes alone.
 */
export async function counts(env: ScenarioEnvironment): Promise<ScenarioReport[]> {
  const { pool, context } = env;
  const cases: { label: string; query: Record<string, string> }[] = [
    { label: 'list (no filter)', query: {} },
    ...TERM_TIERS.map((tier) => {
      const terms = searchTerms(tier);
      return { label: `q=${terms[0]} (${tier})`, query: { q: terms[0] } };
    }),
  ];
  const rows: string[][] = [];
  const figures: Figure[] = [];
  for (const { label, query } of cases) {
    const url = `${env.apiUrl}/api/samples/?${new URLSearchParams({ ...query, page_size: '25' }).toString()}`;
    await fetch(url); // warm
    const began = performance.now();
    const response = await fetch(url);
    const body = (await response.json()) as { count?: number; count_exact?: boolean };
    const apiMs = performance.now() - began;
    const { count } = await listStatements(context, query, { page: 1, pageSize: 25 });
    const countMs = await medianMs(pool, count, 5);
    const exact = Number((await runStatement(pool, await exactCountStatement(context, query))).rows[0].count);
    const flagged = body.count_exact === false;
    // An unflagged count is exact; an estimate is flagged (always above the limit, and below it
    // where counting would cost more than the page: ADR 0011).
    const ruleMet = response.status === 200 && (flagged || body.count === exact);
    rows.push([
      label,
      exact.toLocaleString('en'),
      body.count === undefined ? `none (HTTP ${response.status})` : body.count.toLocaleString('en'),
      body.count_exact === undefined ? 'absent' : String(body.count_exact),
      exact ? `${((100 * ((body.count ?? 0) - exact)) / exact).toFixed(1)}%` : '',
      apiMs.toFixed(1),
      countMs.toFixed(1),
      ruleMet ? 'yes' : '**no**',
    ]);
    figures.push({ metric: `ms (API page, SQL count), ${label}`, api: apiMs, sql: countMs, kind: 'latency' });
  }
  return [
    {
      name: 'Counts: the page request beside the count statement alone',
      figures,
      cpu: {},
      runs: [],
      notes: [
        'What `count` and `count_exact` the answers carry (API: one page request after one warm-up; count ' +
          'statement: the count the app runs, alone, median of 5). Rule: an unflagged count is exact; an estimate ' +
          `carries \`count_exact: false\` (always above ${EXACT_COUNT_LIMIT.toLocaleString('en')} matches, and for ` +
          'text searches the planner expects to match over 1,000: ADR 0011).',
        '',
        markdownTable(
          [
            'Case',
            'Matching (exact)',
            'API count',
            'count_exact',
            'Error',
            'API page ms',
            'Count statement ms',
            'Rule met',
          ],
          rows,
        ),
      ],
    },
  ];
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statements behind the figures of the scenarios run, for the report. */
export async function queryPlans(
  env: Pick<ScenarioEnvironment, 'pool' | 'context' | 'settings' | 'registrant'>,
): Promise<{ title: string; plan: string }[]> {
  const { pool, context, settings } = env;
  const ran = new Set(settings.scenarios);
  const plans: { title: string; statement: Statement }[] = [];
  if (ran.has('fetch')) {
    const [igsn] = await publicIgsns(pool, 1);
    plans.push({ title: `Fetch by IGSN (${igsn})`, statement: fetchStatement(igsn) });
    const pair = tokenPairId(await env.registrant.issueAccessToken());
    plans.push({ title: `Fetch by IGSN with a bearer token (${igsn})`, statement: tokenFetchStatement(igsn, pair) });
  }
  if (ran.has('list') || ran.has('cold')) {
    const page = await listStatements(context, {}, { page: 1, pageSize: 25 });
    plans.push({ title: 'List page 1: page statement', statement: page.rows });
    plans.push({ title: 'List page 1: count statement', statement: page.count });
  }
  if (ran.has('q') || ran.has('count')) {
    for (const tier of TERM_TIERS) {
      const [term] = searchTerms(tier);
      const search = await listStatements(context, { q: term }, { page: 1, pageSize: 25 });
      plans.push({ title: `Search q=${term} (${tier}): page statement`, statement: search.rows });
      plans.push({ title: `Search q=${term} (${tier}): count statement`, statement: search.count });
    }
  }
  if (ran.has('page2000') || ran.has('cold')) {
    const page = await listStatements(context, {}, { page: 1, pageSize: 2000 });
    plans.push({ title: 'page_size=2000: page statement', statement: page.rows });
  }
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

export type Scenario = (env: ScenarioEnvironment) => Promise<ScenarioReport[]>;
