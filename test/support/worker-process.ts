import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverUrls, testDatabaseUrl, testKeyPrefix } from './test-environment';

export interface WorkerProcess {
  child: ChildProcess;
  /** SIGTERM: the worker finishes or returns its job, then exits. */
  stop(): Promise<number | null>;
  /** SIGKILL: the worker dies mid-job. */
  kill(): Promise<void>;
}

/**
 * Starts a real worker (src/worker.ts) as a separate process on this run's database and Redis
 * prefix, and resolves once it reports being started. Short lock times let a killed worker's job
 * be retaken within seconds.
 */
export async function startWorkerProcess(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(root, 'src', 'worker.ts')], {
    cwd: root,
    env: {
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
      TS_NODE_PROJECT: join(root, 'tsconfig.json'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start in time:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // SR_TEST_WORKER_LOG=path keeps the worker's log for debugging.
      if (process.env.SR_TEST_WORKER_LOG) appendFileSync(process.env.SR_TEST_WORKER_LOG, chunk);
      if (output.includes('Worker started')) {
        clearTimeout(timer);
        resolve();
      }
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before starting:\n${output}`));
    });
  });
  return {
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
