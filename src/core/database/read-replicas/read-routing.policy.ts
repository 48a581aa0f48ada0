import { hasReplayed } from './lsn';

/** What a read knows about the work it is part of (an HTTP request, an export job). */
export interface ReadContext {
  /** Who is reading (`user:42`), when known; anonymous readers have no writes to see. */
  caller?: string;
  /** The work writes, or has written: its reads must see its own uncommitted or just-committed rows. */
  writes: boolean;
}

/** A standby as the routing sees it: whether it may take reads, and how far it has replayed. */
export interface StandbyView {
  name: string;
  /** Up and lagging no more than the allowed maximum. */
  usable: boolean;
  /** pg_last_wal_replay_lsn() at the last check. */
  replayLsn?: bigint;
}

/**
 * The caller's last commit position: none remembered (no recent write), a position, or `unknown`
 * (Redis did not answer: their reads go to the primary rather than risk missing their writes).
 */
export type CallerPosition = { kind: 'none' } | { kind: 'at'; lsn: bigint } | { kind: 'unknown' };

export type PrimaryReason =
  /** No context: workers deciding a write, start-up, the CLI — the primary, always. */
  | 'no-context'
  /** The request or job writes. */
  | 'writes'
  /** No standby configured. */
  | 'no-standby'
  /** Standbys are configured but none is up and caught up (a fallback). */
  | 'standby-unavailable'
  /** The caller wrote something no usable standby has replayed yet. */
  | 'read-your-writes';

export type ReadDecision = { target: 'primary'; reason: PrimaryReason } | { target: 'standby'; standby: string };

/** Whether the decision needs the caller's last commit position (a Redis read): only when it can change it. */
export function needsCallerPosition(context: ReadContext | undefined, standbys: StandbyView[]): boolean {
  return !!context && !context.writes && context.caller !== undefined && standbys.some((standby) => standby.usable);
}

/**
 * The read-routing rules, in one place (docs/operations/replicas.md). `turn` spreads reads over
 * the standbys that qualify (round robin).
 */
export function chooseReadTarget(
  context: ReadContext | undefined,
  standbys: StandbyView[],
  position: CallerPosition,
  turn: number,
): ReadDecision {
  if (!context) return { target: 'primary', reason: 'no-context' };
  if (context.writes) return { target: 'primary', reason: 'writes' };
  if (!standbys.length) return { target: 'primary', reason: 'no-standby' };
  const usable = standbys.filter((standby) => standby.usable);
  if (!usable.length) return { target: 'primary', reason: 'standby-unavailable' };
  let caughtUp = usable;
  if (context.caller !== undefined && position.kind !== 'none') {
    const at = position.kind === 'at' ? position.lsn : undefined;
    caughtUp =
      at === undefined
        ? []
        : usable.filter((standby) => standby.replayLsn !== undefined && hasReplayed(standby.replayLsn, at));
  }
  if (!caughtUp.length) return { target: 'primary', reason: 'read-your-writes' };
  return { target: 'standby', standby: caughtUp[turn % caughtUp.length].name };
}
