import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** What lowerWorkerPriority did: the niceness asked for and how many of the process's threads took it. */
export interface PriorityOutcome {
  niceness: number;
  threads: number;
  /** Why some or all threads kept their priority (the system refused), if any did. */
  refused?: string;
}

/**
 * Gives the worker's CPU a lower scheduling priority than the API's (`niceness` 1-19; 0 leaves it
 * alone). On one machine running the API, the worker and PostgreSQL, a batch's validation and row
 * preparation then yield their core to the requests coming in meanwhile, and take it back when they
 * are idle: the batch is a background job, a search is someone waiting (docs/decisions/0010,
 * round 11). Raising one's own niceness needs no privilege; lowering it again would.
 *
 * On Linux a niceness belongs to a thread, and setpriority(PRIO_PROCESS, 0) sets only the calling
 * one: V8's and libuv's threads started with the process would keep the old priority. So every
 * thread in `tasksDir` is set; threads started later (the batch's validation threads, libuv's pool)
 * inherit the priority of the main thread that starts them. Elsewhere the call covers the process.
 */
export function lowerWorkerPriority(niceness: number, tasksDir = '/proc/self/task'): PriorityOutcome {
  if (niceness <= 0) return { niceness: 0, threads: 0 };
  const threads = threadIds(tasksDir) ?? [0];
  let set = 0;
  let refused: string | undefined;
  for (const thread of threads) {
    try {
      // Never lower a niceness an operator raised further (nice -n 15 node dist/src/worker.js).
      if (getPriority(thread) < niceness) setPriority(thread, niceness);
      set += 1;
    } catch (error) {
      // A thread that ended between the listing and the call has nothing to set; anything else is a refusal.
      if ((error as { info?: { code?: string } }).info?.code === 'ESRCH') continue;
      refused ??= error instanceof Error ? error.message : String(error);
    }
  }
  return { niceness, threads: set, ...(refused ? { refused } : {}) };
}

function threadIds(tasksDir: string): number[] | undefined {
  try {
    return readdirSync(tasksDir).map(Number).filter(Number.isInteger);
  } catch {
    return undefined;
  }
}
