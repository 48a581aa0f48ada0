/**
 * The primary's WAL positions as the checks saw them, with when: a standby's lag is how long ago
 * the oldest position it has not replayed was seen. Measured on this process's clock alone (no
 * clock skew between servers), and 0 on an idle primary however long since its last commit.
 */
export class PrimaryPositions {
  private readonly seen: { lsn: bigint; at: number }[] = [];

  /** `limit`: positions kept at most (the oldest go first; a standby down that long is not in use). */
  constructor(private readonly limit = 3600) {}

  /** A check read `lsn` on the primary at `at` (ms); positions that did not move are not kept again. */
  note(lsn: bigint, at: number): void {
    const last = this.seen[this.seen.length - 1];
    if (last && lsn <= last.lsn) return;
    this.seen.push({ lsn, at });
    if (this.seen.length > this.limit) this.seen.shift();
  }

  /** Seconds (to 0.1) since the oldest position past `replayed` was seen; 0 when none is. */
  lagOf(replayed: bigint, now: number): number {
    const behind = this.seen.find((position) => position.lsn > replayed);
    return behind ? Math.round((now - behind.at) / 100) / 10 : 0;
  }

  /** Forgets positions every standby has replayed (`slowest`: the least replayed), keeping the newest. */
  forgetUpTo(slowest: bigint): void {
    while (this.seen.length > 1 && this.seen[0].lsn <= slowest) this.seen.shift();
  }
}
