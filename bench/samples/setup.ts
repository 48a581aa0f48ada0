import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { resolve } from 'node:path';
import { AppConfig, loadAppConfig } from '../../src/core/config/app-config';
import { CoreModule } from '../../src/core/core.module';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { AuthModule } from '../../src/modules/auth/auth.module';
import { TokenService } from '../../src/modules/auth/token.service';
import { SamplesModule } from '../../src/modules/samples/samples.module';

/** Everything the bench reads from the environment, with its defaults. */
export interface BenchSettings {
  samples: number;
  databaseUrl: string;
  redisUrl: string;
  redisKeyPrefix: string;
  jwtSecret: string;
  /** METRICS_TOKEN of the API under test: the register scenario reads its statement count on /metrics. */
  metricsToken: string;
  /** Measured seconds of each throughput scenario, after `warmupSeconds` thrown away. */
  durationSeconds: number;
  warmupSeconds: number;
  /** Requests of the page_size=2000 scenario (one connection). */
  pageRequests: number;
  /** Keep sr_bench after the run (default) or drop it. */
  keepDatabase: boolean;
  /** Use the samples already in sr_bench instead of regenerating them. */
  reuseDatabase: boolean;
  apiPoolSize: number;
  /** Longest wait for a quiet machine before each measured run (0: do not wait). */
  quietTimeoutSeconds: number;
  /** The scenarios to run (BENCH_SCENARIOS, comma-separated; all by default). */
  scenarios: ScenarioName[];
  /** Requests of page_size=2000 without planner statistics (each may take up to the statement timeout). */
  coldPageRequests: number;
  /** Connections the generator loads and builds indexes on. */
  loadConnections: number;
  /**
   * The API's reads on this streaming standby of the bench database (BENCH_READS_ON_STANDBY=1:
   * the bench database on scripts/ensure-standby.sh's 127.0.0.1:5433, or BENCH_STANDBY_URL); null:
   * every read on the primary. On one machine this measures the routing's overhead, not capacity.
   */
  standbyUrl: string | null;
  /**
   * BENCH_CPU_PROFILE=<dir>: the API runs with `--cpu-prof --cpu-prof-dir <dir>` (its profile is
   * written when it stops) and the bench writes `<dir>/windows.json`, the bounds of every measured
   * API run, for bench/lib/cpu-profile.ts. Profiling slows the API: figures of such a run are not
   * the ones to report.
   */
  cpuProfileDir: string | null;
  /**
   * BENCH_API_PROCESSES=1,2 (the default): the process counts the fetch, list, revalidate, q and
   * register scenarios are measured with, each in the same run and against the same bare app. One
   * process is `dist/src/main.js` itself; more are `dist/src/start-all.js` (what `npm start` runs)
   * with API_PROCESSES=n and START_WORKER=false. The other scenarios run with the first count.
   */
  apiProcesses: number[];
}

export const SCENARIO_NAMES = ['fetch', 'list', 'revalidate', 'q', 'page2000', 'register', 'cold', 'count'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

function scenarioList(raw: string | undefined): ScenarioName[] {
  if (!raw?.trim()) return [...SCENARIO_NAMES];
  const names = raw.split(',').map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => !(SCENARIO_NAMES as readonly string[]).includes(name));
  if (unknown.length) {
    throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')}; choose from ${SCENARIO_NAMES.join(', ')}.`);
  }
  return SCENARIO_NAMES.filter((name) => names.includes(name));
}

/** 1m, 10m, 100k, 2500: the data set size in a database name, so sizes coexist. */
export function sizeLabel(samples: number): string {
  if (samples % 1_000_000 === 0) return `${samples / 1_000_000}m`;
  if (samples % 1_000 === 0) return `${samples / 1_000}k`;
  return String(samples);
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}".`);
  return Number(raw);
}

function processCounts(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const counts = raw.split(',').map((part) => part.trim());
  if (counts.some((count) => !/^\d+$/.test(count) || Number(count) < 1 || Number(count) > 64)) {
    throw new Error(`${name} must list process counts from 1 to 64 separated by commas (e.g. 1,2), got "${raw}".`);
  }
  return [...new Set(counts.map(Number))];
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new Error(`${name} must be 1 or 0, got "${raw}".`);
}

export function benchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const samples = integer(env, 'BENCH_SAMPLES', 1_000_000);
  const databaseUrl = env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/sr_bench_${sizeLabel(samples)}`;
  return {
    samples,
    databaseUrl,
    redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    redisKeyPrefix: 'bench-samples',
    jwtSecret: 'bench-only-secret-never-used-in-a-deployment-0123456789',
    metricsToken: 'bench-only-metrics-token',
    durationSeconds: integer(env, 'BENCH_DURATION', 10),
    warmupSeconds: integer(env, 'BENCH_WARMUP', 3),
    pageRequests: integer(env, 'BENCH_PAGE_REQUESTS', 20),
    keepDatabase: flag(env, 'BENCH_KEEP', true),
    reuseDatabase: flag(env, 'BENCH_REUSE', false),
    apiPoolSize: integer(env, 'BENCH_API_POOL_SIZE', 20),
    quietTimeoutSeconds: integer(env, 'BENCH_QUIET_TIMEOUT', 300, 0),
    scenarios: scenarioList(env.BENCH_SCENARIOS),
    coldPageRequests: integer(env, 'BENCH_COLD_PAGE_REQUESTS', 5),
    loadConnections: integer(env, 'BENCH_LOAD_CONNECTIONS', 2),
    standbyUrl: flag(env, 'BENCH_READS_ON_STANDBY', false) ? standbyUrl(env, databaseUrl) : null,
    cpuProfileDir: env.BENCH_CPU_PROFILE?.trim() ? resolve(env.BENCH_CPU_PROFILE.trim()) : null,
    apiProcesses: processCounts(env, 'BENCH_API_PROCESSES', [1, 2]),
  };
}

/** The bench database on the standby: BENCH_STANDBY_URL, else the same database on port 5433. */
function standbyUrl(env: NodeJS.ProcessEnv, databaseUrl: string): string {
  if (env.BENCH_STANDBY_URL) return env.BENCH_STANDBY_URL;
  const url = new URL(databaseUrl);
  url.port = '5433';
  return url.toString();
}

/** The environment of the API process under test (also the base of the bench's own AppConfig). */
export function apiEnvironment(settings: BenchSettings): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: settings.databaseUrl,
    DATABASE_POOL_SIZE: String(settings.apiPoolSize),
    DATABASE_MIGRATE_ON_START: 'false',
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: settings.redisKeyPrefix,
    JWT_SECRET: settings.jwtSecret,
    METRICS_TOKEN: settings.metricsToken,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    AUTH_RATE_LIMIT_PER_IP: '100000',
    AUTH_RATE_LIMIT_PER_ACCOUNT: '100000',
    // The bench measures throughput from one address: the per-IP anonymous limit would cap it.
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '0',
    // Nothing is in flight when the bench stops an API: no drain, so switching process counts is quick.
    SHUTDOWN_DRAIN_SECONDS: '0',
    ...(settings.standbyUrl ? { DATABASE_READ_URLS: settings.standbyUrl } : {}),
  };
}

export function benchConfig(settings: BenchSettings): AppConfig {
  return loadAppConfig({
    ...apiEnvironment(settings),
    DATABASE_POOL_SIZE: String(settings.apiPoolSize),
    PASSWORD_HASH_ROUNDS: '4',
  });
}

/** The services the bench drives directly: accounts and tokens for its registrant, the sample search service for the SQL side. */
@Module({})
class SamplesBenchModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: SamplesBenchModule, imports: [CoreModule.forRoot(config), AuthModule, SamplesModule] };
  }
}

export function openBenchContext(config: AppConfig): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(SamplesBenchModule.forRoot(config), { logger: ['error'] });
}

export const REGISTRANT_EMAIL = 'registrant@bench.example.org';

/** Registry codes for `samples` generated samples: IEB00, IEB01, … with a million each. */
export const SAMPLES_PER_CODE = 1_000_000;

export function registryCodesFor(samples: number): string[] {
  const count = Math.max(1, Math.ceil(samples / SAMPLES_PER_CODE));
  return Array.from({ length: count }, (_, i) => `IEB${i.toString(36).toUpperCase().padStart(2, '0')}`);
}

export interface Registrant {
  userId: number;
  codes: string[];
  /** A developer access token issued by ensureRegistrant (bench/export uses it). */
  accessToken: string;
  /**
   * A new developer access token, as a lab system would use. Issued when a scenario needs it: a
   * user keeps at most five developer pairs, so a token taken earlier may have been evicted since.
   */
  issueAccessToken: () => Promise<string>;
}

/**
 * The user every generated sample belongs to: upload permission, the registry codes, and a way to
 * get developer tokens. Created through AccountsService and TokenService (as `npm run cli -- user:create`,
 * `registry-code:create` and `token:create` do); found again when the database is reused.
 */
export async function ensureRegistrant(context: INestApplicationContext, samples: number): Promise<Registrant> {
  const accounts = context.get(AccountsService);
  const user =
    (await accounts.findByEmail(REGISTRANT_EMAIL)) ??
    (await accounts.createUser({
      email: REGISTRANT_EMAIL,
      password: 'bench-registrant-password',
      name: 'Bench Registrant',
      uploadPermission: true,
    }));
  const codes = registryCodesFor(samples);
  const owned = await accounts.usableRegistryCodes(user.id);
  for (const code of codes) {
    if (!owned.includes(code)) await accounts.createRegistryCode(code, { email: REGISTRANT_EMAIL });
  }
  const tokens = context.get(TokenService);
  return {
    userId: user.id,
    codes,
    accessToken: (await tokens.issuePair(user.id, 'developer')).access,
    issueAccessToken: async () => (await tokens.issuePair(user.id, 'developer')).access,
  };
}
