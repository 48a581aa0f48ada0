/**
 * PostgreSQL write-ahead-log positions (`pg_lsn`, printed `16/B374D848`): two 32-bit hex halves.
 * As bigints they compare in WAL order, which text does not (`9/0` < `10/0`).
 */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!match) throw new Error(`Not a WAL position: "${text}"`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** True when a standby that replayed up to `replayed` has applied everything up to `position`. */
export function hasReplayed(replayed: bigint, position: bigint): boolean {
  return replayed >= position;
}
