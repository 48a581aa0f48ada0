import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface RowValidationRequest {
  id: number;
  bodies: Record<string, unknown>[];
}

/** A row's answer: the error as the report shows it, or the DTO that passed (its data; see reviveCreateSampleDto). */
export type RowVerdict = string | object;

export type RowValidationReply = { id: number; verdicts: RowVerdict[] } | { id: number; failure: string };

interface Waiting {
  resolve: (verdicts: RowVerdict[]) => void;
  reject: (error: Error) => void;
}

/**
 * Worker threads that check batch rows against the register rules (class-validator), so a large
 * batch's validation runs beside its reading, preparation and inserts instead of between them
 * (docs/decisions/0010-batch-validation-threads.md). Started on first use and kept for the
 * process's later batches; a thread that dies fails the checks it held (the job is retried).
 */
export class RowValidationPool {
  private threads: Worker[] = [];
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private turn = 0;

  constructor(readonly size: number) {}

  /** For each body, in order: its DTO's data when it passes, else the row's error as the report shows it. */
  validate(bodies: Record<string, unknown>[]): Promise<RowVerdict[]> {
    if (!this.threads.length) this.start();
    const id = this.nextId++;
    const thread = this.threads[this.turn++ % this.threads.length];
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      thread.postMessage({ id, bodies } satisfies RowValidationRequest);
    });
  }

  async close(): Promise<void> {
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((thread) => thread.terminate()));
  }

  private start(): void {
    // Compiled, the thread is a .js file beside this one; under ts-node or ts-jest, the .ts source.
    const extension = extname(__filename);
    const script = join(__dirname, `row-validation.thread${extension}`);
    const execArgv = extension === '.ts' ? ['-r', 'ts-node/register/transpile-only'] : [];
    for (let i = 0; i < this.size; i++) {
      // A small nursery (not a heap cap): the thread's garbage is per row, and its heap is the process's memory.
      const thread = new Worker(script, { execArgv, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
      // An idle pool must not keep the worker process alive on shutdown.
      thread.unref();
      thread.on('message', (reply: RowValidationReply) => this.settle(reply));
      thread.on('error', (error) => this.abandon(thread, error));
      thread.on('exit', (code) => this.abandon(thread, new Error(`A row validation thread exited (${code}).`)));
      this.threads.push(thread);
    }
  }

  private settle(reply: RowValidationReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if ('failure' in reply) waiting.reject(new Error(`Row validation failed: ${reply.failure}`));
    else waiting.resolve(reply.verdicts);
  }

  /** A thread is gone: every check waiting fails (its thread is unknown), the next use starts anew. */
  private abandon(thread: Worker, error: Error): void {
    if (!this.threads.includes(thread)) return;
    void this.close();
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
