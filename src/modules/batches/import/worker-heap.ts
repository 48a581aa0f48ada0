import { setFlagsFromString } from 'node:v8';

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
 * Applies WORKER_HEAP_GROWING_PERCENT to this process and the threads it starts, unless Node was
 * started with its own `--heap-growing-percent`. V8 reads the factor at each full collection, so it
 * applies from the next one.
 */
export function collectWorkerGarbageSooner(execArgv: string[] = process.execArgv): void {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg))) return;
  setFlagsFromString(`--heap-growing-percent=${WORKER_HEAP_GROWING_PERCENT}`);
}
