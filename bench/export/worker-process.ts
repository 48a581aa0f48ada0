import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { WORKER_NODE_FLAGS } from '../../src/modules/batches/import/worker-heap';

/** A compiled worker (dist/src/worker.js) as its own process, as in production. */
export class BenchWorker {
  private readonly output: string[] = [];
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      this.output.splice(0, Math.max(0, this.output.length - 40));
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts the worker and waits for its "Worker started" line (LOG_LEVEL must be info or lower). */
  static async start(entry: string, env: Record<string, string>, timeoutMs = 60_000): Promise<BenchWorker> {
    // BENCH_WORKER_NODE_ARGS: extra Node flags for the worker, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, ...nodeArgs, entry], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker = new BenchWorker(child);
    const deadline = Date.now() + timeoutMs;
    while (!worker.output.some((line) => line.includes('Worker started'))) {
      if (child.exitCode !== null) throw new Error(`The worker exited before starting:\n${worker.recentOutput()}`);
      if (Date.now() > deadline) {
        await worker.stop();
        throw new Error(`The worker did not start within ${timeoutMs} ms:\n${worker.recentOutput()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return worker;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  recentOutput(): string {
    return this.output.join('\n');
  }

  /** A field of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: the peak since the last reset). */
  memory(field: 'VmRSS' | 'VmHWM'): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  }

  /** Resets VmHWM to the current RSS (Linux: `5` in clear_refs), so the next peak is one export's. */
  resetPeak(): boolean {
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      return true;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(killer);
  }
}
