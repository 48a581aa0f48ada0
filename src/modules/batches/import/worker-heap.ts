import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How far V8 lets the worker's heap grow past what survived the last full collection before it
 * collects again: 1.3×, instead of V8's own factor of up to 4× on a fast-allocating process. A
 * batch promotes its rows' short-lived objects (they outlive a few scavenges while their chunk is
 * checked, prepared and inserted) and they die in the old generation; with V8's factor, ~300 MB of
 * them waited there for a full collection (docs/decisions/0010). 1.5× until a row got cheaper to
 * check (round 6): the same garbage then came faster and a fresh worker peaked at ~310 MB. Not a
 * heap cap: the heap may grow as large as before, it is collected sooner on the way.
 */
export const WORKER_HEAP_GROWING_PERCENT = 30;

/**
 * Node flags every way of starting the worker passes (`npm start`'s supervisor, `npm run
 * start:worker`, docker-compose's worker; a unit test holds them equal): young-generation
 * semi-spaces of 8 MB instead of 16. A batch's workbook read allocates fast, and what outlives two
 * scavenges is promoted and waits for a full collection: the 50,000-row batch peaked at 304-311 MB
 * with 16 MB, 289-292 MB with 8 (the idle worker 147 MB instead of 160) for 0-0.9 s more CPU; 4 MB
 * gave 255-272 MB but 3 s more CPU. V8 reads the size only when the process starts, so it cannot
 * be set from here like the growing factor.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

/**
 * Applies WORKER_HEAP_GROWING_PERCENT to this process and the threads it starts, unless Node was
 * started with its own `--heap-growing-percent`. V8 reads the factor at each full collection, so it
 * applies from the next one.
 */
export function collectWorkerGarbageSooner(execArgv: string[] = process.execArgv): void {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg))) return;
  setFlagsFromString(`--heap-growing-percent=${WORKER_HEAP_GROWING_PERCENT}`);
}

let fullCollection: (() => void) | undefined;

/**
 * A full, compacting collection, for when a process has no batch left running. V8 keeps the pages
 * its heap grew to: a worker that had just registered 50,000 rows held ~240 MB, and its next batch
 * of the same size peaked at 305-319 MB, over the 300 MB target. After this collection the next
 * batch starts ~50 MB lower (242-268 MB at its peak in two alternating pairs of bench runs, against
 * 271-305) for ~0.3 s of CPU once the batch has committed. The collector is exposed at run time
 * (`--expose-gc` set from here, `gc` read from a new context): started with the flag, the worker had
 * spent 1.5-3 s more CPU on every batch (round 9, cause not found); set later, no such cost showed.
 */
export function collectAfterBatch(): void {
  if (!fullCollection) {
    setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as () => void;
  }
  fullCollection();
}
