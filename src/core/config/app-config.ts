import { availableParallelism } from 'node:os';
import {
  ConfigError,
  Env,
  boolean,
  byteSize,
  duration,
  email,
  integer,
  oneOf,
  raw,
  required,
  url,
  urlList,
} from './env-values';
import {
  DataCiteConfig,
  OrcidSignInConfig,
  dataCiteConfig,
  orcidConfig,
  orcidIdTokenIssuers,
} from './integration-config';
import { TrustProxy, parseTrustProxy } from './trust-proxy';

/**
 * The service's configuration: read from the environment once at start-up, validated, and turned
 * into one typed object. Nothing else in the code reads `process.env`.
 */
export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  nodeEnv: NodeEnv;
  http: {
    host: string;
    port: number;
    /** Largest JSON or form body accepted, in bytes. */
    bodyLimit: number;
    /** Largest uploaded file (batch spreadsheets), in bytes. */
    uploadLimit: number;
    /** Largest legacy XML document accepted, in bytes. */
    xmlLimit: number;
    /** `Cache-Control: public, max-age=…` of public reads (samples, lists, landing pages, sitemap). */
    cacheMaxAgeSeconds: number;
    /**
     * How long an API process keeps an anonymous list page to answer repeats of the same URL
     * (LIST_CACHE_SECONDS; never longer than cacheMaxAgeSeconds); 0: every request searches.
     */
    listCacheSeconds: number;
    /** `*` or the list of allowed origins. */
    corsOrigins: '*' | string[];
    /** Which proxies' X-Forwarded-* headers are believed (TRUST_PROXY; trust-proxy.ts). */
    trustProxy: TrustProxy;
    /** Said once at start-up when TRUST_PROXY has a value that is read differently than it says. */
    trustProxyWarning: string | null;
    /** Anonymous searches and lists per minute from one IP address; 0 turns the limit off. */
    anonymousReadsPerMinute: number;
    /** Seconds an in-flight request gets to finish after SIGTERM. */
    shutdownGraceSeconds: number;
    /**
     * Seconds after SIGTERM during which readiness answers 503 but new connections are still
     * served, so a load balancer stops routing here before the port closes (at most the grace).
     */
    shutdownDrainSeconds: number;
  };
  database: {
    url: string;
    poolSize: number;
    /** How long a request waits for a free pooled connection before the API answers 503. */
    poolWaitMs: number;
    /** Apply pending migrations (and create the database) when a process starts. */
    migrateOnStart: boolean;
    /** Statement timeout in milliseconds for every query issued by the service. */
    statementTimeoutMs: number;
    /**
     * Streaming standbys that take reads (docs/operations/replicas.md); empty: every read on the
     * primary, exactly as without replicas.
     */
    readUrls: string[];
    /** A standby further behind the primary than this gets no reads until it catches up. */
    readReplicaMaxLagSeconds: number;
    /** How long a caller's last write position is remembered, so their reads see their own writes. */
    readYourWritesTtlSeconds: number;
  };
  redis: {
    url: string;
    /** Prefix of every key the service writes, so several installs (or test runs) share a Redis. */
    keyPrefix: string;
  };
  worker: {
    concurrency: number;
    /** How long a worker's lock on a job lasts without renewal; a dead worker's job is retaken after it. */
    lockDurationMs: number;
    /** How often workers look for jobs whose worker died. */
    stalledIntervalMs: number;
    /** The worker process's niceness (0: the one it started with): below the API's priority by default. */
    niceness: number;
  };
  auth: {
    jwtSecret: string;
    accessTtlSeconds: number;
    refreshTtlSeconds: number;
    sessionAccessTtlSeconds: number;
    sessionRefreshTtlSeconds: number;
    /** bcrypt cost factor for password hashes. */
    passwordHashRounds: number;
    /** Attempts per minute on login, refresh and connection exchange, per client IP. */
    rateLimitPerIp: number;
    /** Attempts per minute on login and refresh, per account. */
    rateLimitPerAccount: number;
    /**
     * Whether the browser session cookie is `Secure` (and `__Host-` prefixed): true unless turned
     * off, or NODE_ENV is `test` (the browser tests talk plain HTTP to 127.0.0.1).
     */
    sessionCookieSecure: boolean;
    /** Sign in with ORCID on the account pages; null when ORCID_CLIENT_ID/SECRET are unset (off). */
    orcid: OrcidSignInConfig | null;
    /**
     * Issuers whose id_token `sub` is an ORCID iD (ORCID_ID_TOKEN_ISSUERS, plus ORCID_ISSUER): only a
     * connection to one of these signs in by `sub`; any other issuer's `sub` is its own account id.
     */
    orcidIdTokenIssuers: string[];
  };
  igsn: {
    /** The prefix IGSNs are minted with (the first of `doiPrefixes`). */
    doiPrefix: string;
    /**
     * Every DOI prefix a lookup accepts in the DOI form of an IGSN, minting prefix first: a deployment
     * that took over samples registered elsewhere (e.g. SESAR's 10.58052) finds them by those DOIs too.
     */
    doiPrefixes: string[];
  };
  exports: {
    /** How long an export's file can be downloaded. */
    ttlSeconds: number;
    /** Exports one user may have pending or running at once (more: 429). */
    maxConcurrentPerUser: number;
  };
  /** OAI-PMH at /oai (modules/harvesting). */
  harvesting: {
    /** Records (or headers) per ListRecords/ListIdentifiers answer; the rest follows by resumption token. */
    pageSize: number;
    /** Identify's repositoryName. */
    repositoryName: string;
    /** Identify's adminEmail. */
    adminEmail: string;
  };
  /** Label sheets and QR codes (modules/labels). */
  labels: {
    /** Samples one label job may print; a search or batch finding more is refused (400). */
    maxSamples: number;
  };
  /** Ownership transfers (modules/transfers). */
  transfers: {
    /** Samples an acceptance moves within the request; larger ones run as a background job with progress. */
    inlineMax: number;
  };
  batches: {
    /** Cells (filled in) a batch's Samples sheet may hold; the worker stops reading past it. */
    maxCells: number;
    /** Bytes an uploaded workbook may inflate to, counted as inflated (zip bombs lie about sizes). */
    maxInflatedBytes: number;
    /** Worker threads that check a large batch's rows beside the worker's own work; 0: none. */
    validationThreads: number;
    /** Batches of at least this many rows use those threads; smaller ones are checked inline. */
    threadsFromRows: number;
  };
  supervisor: {
    /** `npm start` gives up when one child crashed this many times within the window. */
    maxCrashes: number;
    crashWindowSeconds: number;
    /** API processes `npm start` runs on the one port (node:cluster); the worker is one more. */
    apiProcesses: number;
    /** Whether `npm start` runs the worker beside them (START_WORKER=false: workers run elsewhere, or a benchmark). */
    startWorker: boolean;
  };
  /** The registry's public base URL (`https://registry.example.org`): landing pages, sitemap, DOI targets. */
  publicUrl: string | null;
  /** DataCite DOI registration; null when DATACITE_* are unset (registration off). */
  datacite: DataCiteConfig | null;
  log: {
    level: LogLevel;
  };
  metrics: {
    /** Bearer token Prometheus must send to read /metrics; null: metrics are not served. */
    token: string | null;
    /** Port of the worker's own /metrics listener. */
    workerPort: number;
  };
}

/**
 * The JWT_SECRET values shipped in .env.example and docker-compose.yml: public, so a production
 * process refuses them (anyone could sign tokens).
 */
export const EXAMPLE_JWT_SECRETS: readonly string[] = [
  'local-development-secret-change-me-0123456789',
  'compose-development-secret-change-me-0123456789',
];
/**
 * The accepted DOI prefixes: IGSN_DOI_PREFIX (as before: the one minted with) first, then those of
 * IGSN_DOI_PREFIXES not already listed; without IGSN_DOI_PREFIX the list's first is minted with.
 */
function igsnDoiPrefixes(env: Env): string[] {
  const single = raw(env, 'IGSN_DOI_PREFIX');
  const listed = (raw(env, 'IGSN_DOI_PREFIXES') ?? '')
    .split(',')
    .map((prefix) => prefix.trim())
    .filter(Boolean);
  const prefixes = [...new Set([...(single === undefined ? [] : [single]), ...listed])];
  for (const prefix of prefixes) {
    if (!/^10\.\d{4,9}$/.test(prefix)) {
      const name = prefix === single ? 'IGSN_DOI_PREFIX' : 'IGSN_DOI_PREFIXES';
      throw new ConfigError(name, `must be a DOI prefix such as 10.5072, got "${prefix}".`);
    }
  }
  return prefixes.length ? prefixes : ['10.5072'];
}

function trustProxyConfig(env: Env): ReturnType<typeof parseTrustProxy> {
  try {
    return parseTrustProxy(raw(env, 'TRUST_PROXY') ?? 'false');
  } catch (error) {
    throw new ConfigError('TRUST_PROXY', (error as Error).message);
  }
}

/** Validates the environment into an AppConfig; throws ConfigError naming the first bad variable. */
export function loadAppConfig(env: Env): AppConfig {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');

  const jwtSecret = required(env, 'JWT_SECRET', 'a random string of at least 32 characters');
  if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters long.');
  if (nodeEnv === 'production' && EXAMPLE_JWT_SECRETS.includes(jwtSecret)) {
    throw new ConfigError(
      'JWT_SECRET',
      'is the example value from .env.example or docker-compose.yml; set a random secret in production (e.g. `openssl rand -base64 48`).',
    );
  }

  const metricsToken = raw(env, 'METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,256}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 16-256 printable characters without spaces.');
  }

  const doiPrefixes = igsnDoiPrefixes(env);
  const doiPrefix = doiPrefixes[0];

  const keyPrefix = raw(env, 'REDIS_KEY_PREFIX') ?? 'sr';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(keyPrefix)) {
    throw new ConfigError('REDIS_KEY_PREFIX', 'must be 1-64 letters, digits, dots, dashes or underscores.');
  }

  const corsRaw = raw(env, 'CORS_ORIGINS') ?? '*';
  const corsOrigins =
    corsRaw === '*'
      ? ('*' as const)
      : corsRaw
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean);
  if (corsOrigins !== '*') {
    for (const origin of corsOrigins) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
        throw new ConfigError('CORS_ORIGINS', `must be * or a comma-separated list of origins, got "${origin}".`);
      }
    }
  }

  const publicUrl =
    raw(env, 'PUBLIC_URL') === undefined
      ? null
      : url(env, 'PUBLIC_URL', ['http:', 'https:'], 'https://registry.example.org');
  const datacite = dataCiteConfig(env, publicUrl);
  const readReplicaMaxLagSeconds = integer(env, 'READ_REPLICA_MAX_LAG_SECONDS', 5, 1, 3600);
  const trustProxy = trustProxyConfig(env);

  return {
    nodeEnv,
    http: {
      host: raw(env, 'HOST') ?? '0.0.0.0',
      port: integer(env, 'PORT', 3000, 0, 65535),
      bodyLimit: byteSize(env, 'BODY_LIMIT', '1mb'),
      uploadLimit: byteSize(env, 'UPLOAD_LIMIT', '50mb'),
      xmlLimit: byteSize(env, 'XML_BODY_LIMIT', '5mb'),
      cacheMaxAgeSeconds: integer(env, 'HTTP_CACHE_MAX_AGE_SECONDS', 60, 0, 31_536_000),
      listCacheSeconds: integer(env, 'LIST_CACHE_SECONDS', 1, 0, 60),
      corsOrigins,
      trustProxy: trustProxy.setting,
      trustProxyWarning: trustProxy.warning ?? null,
      anonymousReadsPerMinute: integer(env, 'ANONYMOUS_RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000),
      shutdownGraceSeconds: integer(env, 'SHUTDOWN_GRACE_SECONDS', 25, 0, 3600),
      shutdownDrainSeconds: integer(env, 'SHUTDOWN_DRAIN_SECONDS', 5, 0, 3600),
    },
    database: {
      url: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'], 'postgres://user@host:5432/database'),
      poolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
      poolWaitMs: integer(env, 'DATABASE_POOL_WAIT_MS', 15000, 100, 600000),
      migrateOnStart: boolean(env, 'DATABASE_MIGRATE_ON_START', true),
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 60000, 0, 3600000),
      readUrls: urlList(
        env,
        'DATABASE_READ_URLS',
        ['postgres:', 'postgresql:'],
        'postgres://user@standby:5432/database',
      ),
      readReplicaMaxLagSeconds,
      readYourWritesTtlSeconds: integer(
        env,
        'READ_YOUR_WRITES_TTL_SECONDS',
        Math.max(60, readReplicaMaxLagSeconds * 2),
        readReplicaMaxLagSeconds,
        86400,
      ),
    },
    redis: {
      url: url(env, 'REDIS_URL', ['redis:', 'rediss:'], 'redis://host:6379/0'),
      keyPrefix,
    },
    worker: {
      concurrency: integer(env, 'WORKER_CONCURRENCY', 2, 1, 64),
      lockDurationMs: integer(env, 'WORKER_LOCK_DURATION_MS', 30000, 1000, 3600000),
      stalledIntervalMs: integer(env, 'WORKER_STALLED_INTERVAL_MS', 30000, 1000, 3600000),
      niceness: integer(env, 'WORKER_NICE', 10, 0, 19),
    },
    auth: {
      jwtSecret,
      accessTtlSeconds: duration(env, 'JWT_ACCESS_TTL', '1d'),
      refreshTtlSeconds: duration(env, 'JWT_REFRESH_TTL', '365d'),
      sessionAccessTtlSeconds: duration(env, 'SESSION_ACCESS_TTL', '1h'),
      sessionRefreshTtlSeconds: duration(env, 'SESSION_REFRESH_TTL', '14d'),
      passwordHashRounds: integer(env, 'PASSWORD_HASH_ROUNDS', 12, 4, 15),
      rateLimitPerIp: integer(env, 'AUTH_RATE_LIMIT_PER_IP', 30, 1, 100000),
      rateLimitPerAccount: integer(env, 'AUTH_RATE_LIMIT_PER_ACCOUNT', 10, 1, 100000),
      sessionCookieSecure: boolean(env, 'SESSION_COOKIE_SECURE', nodeEnv !== 'test'),
      orcid: orcidConfig(env),
      orcidIdTokenIssuers: orcidIdTokenIssuers(env),
    },
    igsn: { doiPrefix, doiPrefixes },
    exports: {
      ttlSeconds: duration(env, 'EXPORT_TTL', '24h'),
      maxConcurrentPerUser: integer(env, 'EXPORT_MAX_CONCURRENT_PER_USER', 2, 1, 1000),
    },
    harvesting: {
      pageSize: integer(env, 'OAI_PAGE_SIZE', 100, 1, 1000),
      repositoryName: raw(env, 'OAI_REPOSITORY_NAME') ?? 'Sample Registry',
      adminEmail: email(env, 'OAI_ADMIN_EMAIL', 'admin@example.org'),
    },
    labels: {
      maxSamples: integer(env, 'LABELS_MAX_SAMPLES', 10_000, 1, 100_000),
    },
    transfers: {
      inlineMax: integer(env, 'TRANSFER_INLINE_MAX', 1000, 0, 100_000),
    },
    batches: {
      maxCells: integer(env, 'BATCH_MAX_CELLS', 3_000_000, 1, 1_000_000_000),
      maxInflatedBytes: byteSize(env, 'BATCH_MAX_INFLATED_BYTES', '400mb'),
      // The cores left beside the worker's own thread and PostgreSQL's inserts: none on two cores,
      // where a thread's isolate costs more memory and CPU than it saves time (docs/decisions/0010).
      validationThreads: integer(env, 'BATCH_VALIDATION_THREADS', Math.max(0, availableParallelism() - 2), 0, 64),
      threadsFromRows: integer(env, 'BATCH_THREADS_FROM_ROWS', 5000, 1, 1_000_000),
    },
    supervisor: {
      maxCrashes: integer(env, 'SUPERVISOR_MAX_CRASHES', 5, 1, 1000),
      crashWindowSeconds: integer(env, 'SUPERVISOR_CRASH_WINDOW_SECONDS', 60, 1, 86400),
      // The machine's cores minus one (left to the worker and PostgreSQL), at least one.
      apiProcesses: integer(env, 'API_PROCESSES', Math.max(1, availableParallelism() - 1), 1, 256),
      startWorker: boolean(env, 'START_WORKER', true),
    },
    publicUrl: publicUrl?.replace(/\/+$/, '') ?? null,
    datacite,
    log: {
      level: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    },
    metrics: { token: metricsToken, workerPort: integer(env, 'METRICS_PORT', 9464, 0, 65535) },
  };
}
