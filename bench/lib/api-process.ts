import { ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processTree } from './cpu-monitor';

// The test support's, shared: the benchmarks start API processes the way the system tests do.
export { freePort } from '../../test/support/free-port';

/**
 * A private copy of the compiled app (`dist/`), with node_modules linked in, so a rebuild in the
 * same checkout while a benchmark runs (`nest build` empties dist/ first) cannot pull files away
 * from the process under test. `remove()` deletes the copy.
 */
export async function snapshotBuild(projectRoot: string): Promise<{ root: string; remove: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'sr-bench-build-'));
  await cp(join(projectRoot, 'dist'), join(root, 'dist'), { recursive: true });
  await symlink(join(projectRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

export interface ApiProcessOptions {
  /** The compiled entry point, e.g. dist/src/main.js. */
  entry: string;
  /** Node options before the entry, e.g. `['-r', 'ts-node/register/transpile-only']` for a TypeScript one. */
  nodeArgs?: string[];
  /** Added to the bench's own environment. */
  env: Record<string, string>;
  port: number;
  /** Answers 200 once the process can serve, e.g. /api/health/ready/. */
  readyPath: string;
  /**
   * Also wait until the process has written a line containing `text` this many times, e.g. the
   * supervisor's `listening on` once per API process of a cluster: the ready path answers as soon as
   * one of them listens.
   */
  readyOutput?: { text: string; times: number };
  readyTimeoutMs?: number;
}

/** An API started as its own process, as in production; stop() ends it (SIGTERM, then SIGKILL). */
export class ApiProcess {
  private readonly output: string[] = [];
  private exited: Promise<number | null>;
  /** Lines seen so far containing the `readyOutput` text. */
  private readyLines = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    readyText?: string,
  ) {
    const keep = (chunk: Buffer) => {
      const lines = chunk.toString('utf8').split('\n').filter(Boolean);
      if (readyText) this.readyLines += lines.filter((line) => line.includes(readyText)).length;
      this.output.push(...lines);
      this.output.splice(0, Math.max(0, this.output.length - 40));
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(options: ApiProcessOptions): Promise<ApiProcess> {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry], {
      env: { ...process.env, ...options.env, PORT: String(options.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const api = new ApiProcess(child, `http://127.0.0.1:${options.port}`, options.readyOutput?.text);
    try {
      await api.waitUntilReady(options.readyPath, options.readyOutput?.times ?? 0, options.readyTimeoutMs ?? 60_000);
    } catch (error) {
      await api.stop();
      throw error;
    }
    return api;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The process and every process it started (a cluster's API processes): whose CPU counts as the API's. */
  pids(): number[] {
    return this.child.pid ? processTree(this.child.pid) : [];
  }

  /** The last lines the process wrote (stdout and stderr), for error reports. */
  recentOutput(): string {
    return this.output.join('\n');
  }

  private async waitUntilReady(path: string, readyLines: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void this.exited.then((code) => (exitCode = code));
    while (Date.now() < deadline) {
      if (exitCode !== undefined) {
        throw new Error(`The API exited with code ${exitCode} before it was ready:\n${this.recentOutput()}`);
      }
      try {
        const response = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(2000) });
        if (response.ok && this.readyLines >= readyLines) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`The API was not ready within ${timeoutMs} ms:\n${this.recentOutput()}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(killer);
  }
}
