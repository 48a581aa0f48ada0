import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getPriority, setPriority } from 'node:os';
import { lowerWorkerPriority } from './worker-priority';

/** The niceness of every thread of `pid` (Linux: one per entry of /proc/<pid>/task). */
function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => getPriority(Number(tid)));
}

// The test lowers another process's priority, never the test runner's own.
describe('lowerWorkerPriority', () => {
  let child: ChildProcess;

  beforeEach(async () => {
    // Its threads are running once it has printed (at the 'spawn' event only the first one is).
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000); console.log("ready")'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await new Promise((resolve) => child.stdout!.once('data', resolve));
  });

  afterEach(() => {
    child.kill('SIGKILL');
  });

  it('sets the niceness of every thread of the process, not only the one that asks', () => {
    const pid = child.pid!;
    // Node starts V8's and libuv's threads with the process: more than one thread to cover.
    expect(readdirSync(`/proc/${pid}/task`).length).toBeGreaterThan(1);

    const outcome = lowerWorkerPriority(10, `/proc/${pid}/task`);

    expect(outcome).toEqual({ niceness: 10, threads: readdirSync(`/proc/${pid}/task`).length });
    expect(new Set(threadNiceness(pid))).toEqual(new Set([10]));
  });

  it('keeps a niceness an operator set higher', () => {
    const pid = child.pid!;
    setPriority(pid, 15);

    lowerWorkerPriority(10, `/proc/${pid}/task`);

    expect(getPriority(pid)).toBe(15);
    expect(new Set(threadNiceness(pid))).toEqual(new Set([15, 10]));
  });

  it('leaves every thread alone at 0', () => {
    const pid = child.pid!;

    expect(lowerWorkerPriority(0, `/proc/${pid}/task`)).toEqual({ niceness: 0, threads: 0 });

    expect(new Set(threadNiceness(pid))).toEqual(new Set([0]));
  });

  it('passes over a thread that ended meanwhile without calling it a refusal', () => {
    const pid = child.pid!;
    const tasks = mkdtempSync(join(tmpdir(), 'tasks-'));
    try {
      // Above Linux's largest pid (2^22): no such thread.
      for (const tid of [String(pid), '4194305']) writeFileSync(join(tasks, tid), '');

      expect(lowerWorkerPriority(10, tasks)).toEqual({ niceness: 10, threads: 1 });
      expect(getPriority(pid)).toBe(10);
    } finally {
      rmSync(tasks, { recursive: true });
    }
  });
});
