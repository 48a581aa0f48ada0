import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_JWT_SECRETS, loadAppConfig } from './app-config';
import { ConfigError, parseByteSize, parseDurationSeconds } from './env-values';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/sample_registry',
  REDIS_URL: 'redis://127.0.0.1:6379/0',
  JWT_SECRET: 'x'.repeat(32),
};

function errorFor(env: Record<string, string>): string {
  try {
    loadAppConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadAppConfig', () => {
  it('builds a typed config with documented defaults', () => {
    const config = loadAppConfig(base);
    expect(config.http.port).toBe(3000);
    expect(config.http.bodyLimit).toBe(1024 * 1024);
    expect(config.auth.accessTtlSeconds).toBe(86400);
    expect(config.auth.refreshTtlSeconds).toBe(365 * 86400);
    expect(config.igsn.doiPrefix).toBe('10.5072');
    expect(config.http.corsOrigins).toBe('*');
    expect(config.database.migrateOnStart).toBe(true);
    expect(config.supervisor.startWorker).toBe(true);
    expect(config.http.listCacheSeconds).toBe(1);
  });

  it('lets npm start run the API processes without the worker', () => {
    const config = loadAppConfig({ ...base, API_PROCESSES: '2', START_WORKER: 'false' });
    expect(config.supervisor).toMatchObject({ apiProcesses: 2, startWorker: false });
  });

  it('names a missing required variable in one line', () => {
    const message = errorFor({ ...base, DATABASE_URL: '' });
    expect(message).toBe('Invalid configuration: DATABASE_URL is required (postgres://user@host:5432/database).');
    expect(message).not.toContain('\n');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be an integer'],
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535'],
    [{ LIST_CACHE_SECONDS: '61' }, 'LIST_CACHE_SECONDS must be between 0 and 60'],
    [{ REDIS_URL: 'http://localhost' }, 'REDIS_URL must use redis:// or rediss://'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters long.'],
    [{ IGSN_DOI_PREFIX: '5072' }, 'IGSN_DOI_PREFIX must be a DOI prefix'],
    [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT must be a size'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY must be false, a hop count, or a comma-separated list'],
    [{ CORS_ORIGINS: 'example.org' }, 'CORS_ORIGINS must be * or a comma-separated list'],
    [{ JWT_ACCESS_TTL: '1w' }, 'JWT_ACCESS_TTL must be a duration'],
    [{ PUBLIC_URL: 'registry.example.org' }, 'PUBLIC_URL must be a URL'],
    [{ DATACITE_API_URL: 'https://api.test.datacite.org' }, 'DATACITE_REPOSITORY_ID is required when DATACITE_API_URL'],
    [
      { DATACITE_API_URL: 'https://api.test.datacite.org', DATACITE_REPOSITORY_ID: 'A.B', DATACITE_PASSWORD: 'p' },
      'PUBLIC_URL is required when DataCite registration is configured',
    ],
    [
      {
        PUBLIC_URL: 'https://registry.example.org',
        DATACITE_API_URL: 'https://api.test.datacite.org',
        DATACITE_REPOSITORY_ID: 'A.B',
        DATACITE_PASSWORD: 'p',
        DATACITE_REQUESTS_PER_5_MIN: '300',
        DATACITE_BULK_REQUESTS_PER_5_MIN: '400',
      },
      'DATACITE_BULK_REQUESTS_PER_5_MIN must be at most DATACITE_REQUESTS_PER_5_MIN (300)',
    ],
  ])('rejects %j', (override, expected) => {
    expect(errorFor({ ...base, ...override })).toContain(expected);
  });

  it('refuses the shipped example JWT secrets in production only', () => {
    const root = join(__dirname, '..', '..', '..');
    const envExample = /^JWT_SECRET=(.+)$/m.exec(readFileSync(join(root, '.env.example'), 'utf8'))?.[1];
    expect(envExample).toBeDefined();
    expect(EXAMPLE_JWT_SECRETS).toContain(envExample);
    for (const secret of EXAMPLE_JWT_SECRETS) {
      expect(errorFor({ ...base, NODE_ENV: 'production', JWT_SECRET: secret })).toContain(
        'JWT_SECRET is the example value',
      );
      expect(loadAppConfig({ ...base, NODE_ENV: 'development', JWT_SECRET: secret }).auth.jwtSecret).toBe(secret);
    }
    expect(loadAppConfig({ ...base, NODE_ENV: 'production' }).nodeEnv).toBe('production');
  });

  it('serves metrics only with a token', () => {
    expect(loadAppConfig(base).metrics).toEqual({ token: null, workerPort: 9464 });
    const token = 'a-metrics-token-0123';
    expect(loadAppConfig({ ...base, METRICS_TOKEN: token, METRICS_PORT: '9100' }).metrics).toEqual({
      token,
      workerPort: 9100,
    });
    expect(errorFor({ ...base, METRICS_TOKEN: 'short' })).toContain('METRICS_TOKEN must be 16-256 printable');
  });

  it('turns DataCite registration off unless configured, and on with all of it', () => {
    const off = loadAppConfig(base);
    expect(off.datacite).toBeNull();
    expect(off.publicUrl).toBeNull();
    const on = loadAppConfig({
      ...base,
      PUBLIC_URL: 'https://registry.example.org/',
      DATACITE_API_URL: 'https://api.test.datacite.org/',
      DATACITE_REPOSITORY_ID: 'ABC.XYZ',
      DATACITE_PASSWORD: 'secret',
    });
    expect(on.publicUrl).toBe('https://registry.example.org');
    expect(on.datacite).toEqual({
      apiUrl: 'https://api.test.datacite.org',
      repositoryId: 'ABC.XYZ',
      password: 'secret',
      concurrency: 4,
      timeoutMs: 30000,
      requestsPer5Min: 2500,
      bulkRequestsPer5Min: 500,
    });
  });

  it("turns sign in with ORCID on with both client variables, on ORCID's public issuer unless told", () => {
    expect(loadAppConfig(base).auth.orcid).toBeNull();
    expect(loadAppConfig({ ...base, ORCID_CLIENT_ID: 'APP-1234', ORCID_CLIENT_SECRET: 'shh' }).auth.orcid).toEqual({
      issuer: 'https://orcid.org',
      clientId: 'APP-1234',
      clientSecret: 'shh',
    });
    expect(
      loadAppConfig({
        ...base,
        ORCID_ISSUER: 'https://sandbox.orcid.org/',
        ORCID_CLIENT_ID: 'APP-1234',
        ORCID_CLIENT_SECRET: 'shh',
      }).auth.orcid?.issuer,
    ).toBe('https://sandbox.orcid.org');
    expect(errorFor({ ...base, ORCID_CLIENT_ID: 'APP-1234' })).toBe(
      'Invalid configuration: ORCID_CLIENT_SECRET is required when ORCID_CLIENT_ID is set (sign in with ORCID).',
    );
    expect(
      errorFor({ ...base, ORCID_ISSUER: 'orcid', ORCID_CLIENT_ID: 'APP-1234', ORCID_CLIENT_SECRET: 'shh' }),
    ).toContain('ORCID_ISSUER must be a URL');
  });

  it('makes the session cookie Secure except in tests, unless told', () => {
    expect(loadAppConfig(base).auth.sessionCookieSecure).toBe(true);
    expect(loadAppConfig({ ...base, NODE_ENV: 'production' }).auth.sessionCookieSecure).toBe(true);
    expect(loadAppConfig({ ...base, NODE_ENV: 'test' }).auth.sessionCookieSecure).toBe(false);
    expect(loadAppConfig({ ...base, SESSION_COOKIE_SECURE: 'false' }).auth.sessionCookieSecure).toBe(false);
  });

  it('reads on standbys only when DATABASE_READ_URLS lists them, with a lag limit and a read-your-writes window', () => {
    const none = loadAppConfig({ ...base, DATABASE_READ_URLS: ' ' });
    expect(none.database).toMatchObject({ readUrls: [], readReplicaMaxLagSeconds: 5, readYourWritesTtlSeconds: 60 });
    const two = loadAppConfig({
      ...base,
      DATABASE_READ_URLS: 'postgres://r@standby-1:5432/db, postgresql://r@standby-2/db,',
      READ_REPLICA_MAX_LAG_SECONDS: '40',
    });
    expect(two.database.readUrls).toEqual(['postgres://r@standby-1:5432/db', 'postgresql://r@standby-2/db']);
    // The window is never shorter than the lag a standby in use may have.
    expect(two.database.readYourWritesTtlSeconds).toBe(80);
    expect(errorFor({ ...base, DATABASE_READ_URLS: 'mysql://standby/db' })).toContain('DATABASE_READ_URLS');
    expect(errorFor({ ...base, READ_REPLICA_MAX_LAG_SECONDS: '0' })).toContain('READ_REPLICA_MAX_LAG_SECONDS');
    expect(errorFor({ ...base, READ_YOUR_WRITES_TTL_SECONDS: '2' })).toContain('READ_YOUR_WRITES_TTL_SECONDS');
  });

  it('parses CORS origin lists', () => {
    const config = loadAppConfig({ ...base, CORS_ORIGINS: 'https://a.example, http://b.example:8080' });
    expect(config.http.corsOrigins).toEqual(['https://a.example', 'http://b.example:8080']);
  });
});

describe('size and duration parsing', () => {
  it.each([
    ['1048576', 1048576],
    ['512kb', 524288],
    ['10MB', 10485760],
    ['1.5mb', 1572864],
  ])('parses size %s', (value, bytes) => expect(parseByteSize(value)).toBe(bytes));

  it.each(['', 'mb', '-1', '0'])('rejects size %j', (value) => expect(parseByteSize(value)).toBeUndefined());

  it.each([
    ['3600', 3600],
    ['15m', 900],
    ['1h', 3600],
    ['365d', 31536000],
  ])('parses duration %s', (value, seconds) => expect(parseDurationSeconds(value)).toBe(seconds));
});
