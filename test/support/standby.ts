import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { serverUrls, testDatabaseUrl } from './test-environment';

const run = promisify(execFile);
const PROJECT_ROOT = join(__dirname, '..', '..');

/**
 * The streaming standby of the test PostgreSQL that scripts/ensure-standby.sh keeps on
 * 127.0.0.1:5433 (TEST_STANDBY_URL overrides): the same databases, read-only, a moment behind.
 */
export function standbyServerUrl(): string {
  return process.env.TEST_STANDBY_URL ?? 'postgres://postgres@127.0.0.1:5433/postgres';
}

/** This run's database, on the standby. */
export function standbyDatabaseUrl(): string {
  const url = new URL(standbyServerUrl());
  url.pathname = new URL(testDatabaseUrl()).pathname;
  return url.toString();
}

/** Runs one statement on the standby (as its superuser) in `database` (default: this run's). */
export async function onStandby<T>(sql: string, params: unknown[] = [], url = standbyDatabaseUrl()): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs one statement on the primary's `postgres` database. */
export async function onPrimary<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: serverUrls().database, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Stops replaying WAL (the standby keeps receiving it): its data stays as it is now. */
export async function pauseReplay(): Promise<void> {
  await onStandby('SELECT pg_wal_replay_pause()', [], standbyServerUrl());
  // The pause takes effect at the next record replayed: wait until it has.
  for (;;) {
    const [row] = await onStandby<{ state: string }>(
      'SELECT pg_get_wal_replay_pause_state() AS state',
      [],
      standbyServerUrl(),
    );
    if (row.state === 'paused') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function resumeReplay(): Promise<void> {
  await onStandby('SELECT pg_wal_replay_resume()', [], standbyServerUrl());
}

/** The Debian cluster (`15 standby`) that scripts/ensure-standby.sh made. */
async function cluster(): Promise<[string, string]> {
  const [row] = await onPrimary<{ server_version_num: string }>('SHOW server_version_num');
  return [String(Math.floor(Number(row.server_version_num) / 10000)), 'standby'];
}

function asRoot(command: string, args: string[]): Promise<unknown> {
  return process.getuid?.() === 0 ? run(command, args) : run('sudo', ['-n', command, ...args]);
}

/** Stops the standby at once (`-m fast`: its connections are ended mid-query). */
export async function stopStandby(): Promise<void> {
  const [version, name] = await cluster();
  await asRoot('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, 'stop', '-m', 'fast']);
}

/** Starts the standby again (or makes it, as ensure-services does) and waits until it answers. */
export async function startStandby(): Promise<void> {
  await run('bash', [join(PROJECT_ROOT, 'scripts', 'ensure-standby.sh')]);
}

/** Resolves once the standby has replayed everything the primary has written so far. */
export async function waitForStandbyCaughtUp(): Promise<void> {
  const [{ lsn }] = await onPrimary<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  for (;;) {
    const [row] = await onStandby<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
    if (row.done) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
