import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverUrls, testDatabaseUrl, testKeyPrefix } from './test-environment';

export const PROJECT_ROOT = join(__dirname, '..', '..');

export { freePort } from './free-port';

/** The environment of a service process on this run's database and Redis prefix. */
export function serviceEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    DATABASE_URL: testDatabaseUrl(),
    REDIS_URL: serverUrls().redis,
    REDIS_KEY_PREFIX: testKeyPrefix(),
    JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
    DATABASE_MIGRATE_ON_START: 'false',
    LOG_LEVEL: 'info',
    WORKER_CONCURRENCY: '2',
    WORKER_LOCK_DURATION_MS: '10000',
    WORKER_STALLED_INTERVAL_MS: '3000',
    // As in testConfig: suites list anonymously right after writing.
    LIST_CACHE_SECONDS: '0',
    TS_NODE_PROJECT: join(PROJECT_ROOT, 'tsconfig.json'),
    ...extra,
  };
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Everything the process wrote so far (stdout and stderr, the last 100 kB or more). */
  output(): string;
  /** Resolves once the output contains `text` `count` times in all. */
  waitForOutput(text: string, count?: number, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

/** Starts `src/<script>.ts` as a real process (ts-node) and resolves once it wrote `readyText`. */
export async function startServiceProcess(
  script: string,
  env: Record<string, string>,
  readyText: string,
  timeoutMs = 180_000,
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(PROJECT_ROOT, 'src', `${script}.ts`)],
    { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const waiters = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    // SR_TEST_WORKER_LOG=path keeps the processes' logs for debugging.
    if (process.env.SR_TEST_WORKER_LOG) appendFileSync(process.env.SR_TEST_WORKER_LOG, chunk);
    if (output.length > 400_000) output = output.slice(-200_000);
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  const occurrences = (text: string) => output.split(text).length - 1;
  const waitForOutput = (text: string, count = 1, wait = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (occurrences(text) < count) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`"${text}" x${count} did not appear in time:\n${output.slice(-5000)}`));
      }, wait);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      void exited.then((code) => {
        if (occurrences(text) >= count) return;
        done();
        reject(new Error(`${script} exited (${code}) before "${text}":\n${output.slice(-5000)}`));
      });
      check();
    });

  await waitForOutput(readyText, 1, timeoutMs);
  return {
    child,
    exited,
    output: () => output,
    waitForOutput,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
