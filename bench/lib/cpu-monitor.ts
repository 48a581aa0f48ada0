import { readdirSync, readFileSync } from 'node:fs';

/*
 * Benchmarks share the machine with whatever else runs on it (other test suites, builds). These
 * helpers read /proc to wait for a quiet machine before measuring, and to tell afterwards how much
 * CPU went to processes other than the ones under test. Without /proc (not Linux) they report
 * nothing and never wait.
 */

interface MachineTicks {
  busy: number;
  total: number;
}

function machineTicks(): MachineTicks | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in clock ticks; 0 once it is gone. */
function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * `pid` and every process below it (children, their children…), e.g. a node:cluster primary and its
 * API processes; empty once `pid` is gone or without /proc.
 */
export function processTree(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Exited while listed.
    }
  }
  if (!entries.includes(String(pid))) return [];
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

export interface CpuShare {
  /** Busy share of all cores over the window, 0-100. */
  machineBusy: number;
  /** Share of all cores used by the processes under test (bench, API, their PostgreSQL backends). */
  own: number;
  /** Everything else: other processes and PostgreSQL's background work. */
  foreign: number;
  /** CPU seconds each labelled group of processes used in the window, when the pids came labelled. */
  cpuSeconds?: Record<string, number>;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Processes that come and go during a window (e.g. PostgreSQL parallel workers), polled to catch them. */
export interface TransientProcesses {
  /** The label their CPU seconds are reported under (added to a labelled group of the same name). */
  label: string;
  pids: () => Promise<number[]>;
  intervalMs?: number;
}

/**
 * Starts measuring now; `stop()` reports the CPU shares since, given the pids under test: a list,
 * or lists by label (e.g. `{ api: [...], postgres: [...] }`) to get CPU seconds per label too.
 * Short-lived processes under test are polled (`transient`): their time up to the last poll before
 * they exit counts as under test; without that it would count as other work.
 */
export function startCpuWatch(
  pids: () => Promise<number[] | Record<string, number[]>>,
  transient?: TransientProcesses,
): {
  stop: () => Promise<CpuShare | undefined>;
} {
  const labelled = async () => {
    const found = await pids();
    return Array.isArray(found) ? { all: found } : found;
  };
  const startMachine = machineTicks();
  const started = labelled().then(
    (groups) => new Map(Object.values(groups).flatMap((list) => list.map((pid) => [pid, processTicks(pid)] as const))),
  );
  // Awaited in stop(); until then a failure must not count as an unhandled rejection.
  started.catch(() => undefined);
  // Transient pid → [ticks when first seen if it already ran at the start, else 0; ticks last seen].
  const transientTicks = new Map<number, [number, number]>();
  let polling = true;
  let first = true;
  const poller = (async () => {
    while (transient && polling) {
      let found: number[];
      try {
        found = await transient.pids();
      } catch {
        return; // e.g. the pool closed while the bench stops: report what was seen.
      }
      for (const pid of found) {
        const ticks = processTicks(pid);
        const known = transientTicks.get(pid);
        if (known) known[1] = Math.max(known[1], ticks);
        else transientTicks.set(pid, [first ? ticks : 0, ticks]);
      }
      first = false;
      await new Promise((resolve) => setTimeout(resolve, transient.intervalMs ?? 25));
    }
  })();
  return {
    stop: async () => {
      polling = false;
      await poller;
      const before = await started;
      const after = await labelled();
      const endMachine = machineTicks();
      if (!startMachine || !endMachine || endMachine.total === startMachine.total) return undefined;
      // Processes that appear only at the end started during the window: all their time is in it.
      const used = (list: number[]) => list.reduce((sum, pid) => sum + processTicks(pid) - (before.get(pid) ?? 0), 0);
      const cpuSeconds: Record<string, number> = Object.fromEntries(
        Object.entries(after).map(([label, list]) => [label, used(list) / TICKS_PER_SECOND]),
      );
      const transientUsed = [...transientTicks.values()].reduce((sum, [first, last]) => sum + last - first, 0);
      if (transient) {
        cpuSeconds[transient.label] = (cpuSeconds[transient.label] ?? 0) + transientUsed / TICKS_PER_SECOND;
      }
      const own = used([...new Set(Object.values(after).flat())]) + transientUsed;
      const total = endMachine.total - startMachine.total;
      const busy = endMachine.busy - startMachine.busy;
      const share = (ticks: number) => Math.max(0, Math.min(100, (100 * ticks) / total));
      return { machineBusy: share(busy), own: share(own), foreign: share(busy - own), cpuSeconds };
    },
  };
}

/**
 * Waits until the machine has been nearly idle (busy below `maxBusyPercent` of all cores) for one
 * `windowMs`, or `timeoutMs` has passed. Returns the last busy share seen.
 */
export async function waitForQuietMachine(options: {
  maxBusyPercent: number;
  windowMs: number;
  timeoutMs: number;
  onWait?: (busyPercent: number) => void;
}): Promise<number | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, options.windowMs));
    const after = machineTicks();
    if (!before || !after || after.total === before.total) return undefined;
    const busy = (100 * (after.busy - before.busy)) / (after.total - before.total);
    if (busy <= options.maxBusyPercent || Date.now() >= deadline) return busy;
    options.onWait?.(busy);
  }
}

/** What a load run calls around its phases: wait before the warm-up, watch the measured part. */
export interface LoadHooks {
  beforeWarmup?: () => Promise<void>;
  watch?: () => { stop: () => Promise<CpuShare | undefined> };
}
