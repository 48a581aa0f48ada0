import { ChildProcess } from 'node:child_process';
import { serviceEnv, startServiceProcess } from './service-process';

export interface WorkerProcess {
  child: ChildProcess;
  /** SIGTERM: the worker finishes or returns its job, then exits. */
  stop(): Promise<number | null>;
  /** SIGKILL: the worker dies mid-job. */
  kill(): Promise<void>;
  /** Resolves once the worker's output contains `text` (see ServiceProcess.waitForOutput). */
  waitForOutput(text: string, count?: number, timeoutMs?: number): Promise<void>;
  /** Everything the worker wrote so far (see ServiceProcess.output). */
  output(): string;
}

/**
 * Starts a real worker (src/worker.ts) as a separate process on this run's database and Redis
 * prefix, and resolves once it reports being started. Short lock times let a killed worker's job
 * be retaken within seconds.
 */
export async function startWorkerProcess(env: Record<string, string> = {}): Promise<WorkerProcess> {
  return startServiceProcess('worker', serviceEnv(env), 'Worker started');
}
