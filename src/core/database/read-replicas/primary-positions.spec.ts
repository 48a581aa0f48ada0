import { PrimaryPositions } from './primary-positions';

describe('standby lag from the primary positions seen', () => {
  it('is how long ago the oldest position not replayed was seen', () => {
    const positions = new PrimaryPositions();
    positions.note(100n, 1_000);
    positions.note(200n, 2_000);
    positions.note(300n, 3_000);
    expect(positions.lagOf(50n, 4_000)).toBe(3);
    expect(positions.lagOf(100n, 4_000)).toBe(2);
    expect(positions.lagOf(250n, 4_000)).toBe(1);
    expect(positions.lagOf(300n, 4_000)).toBe(0);
  });

  it('stays 0 on an idle primary: a position that did not move keeps its first sighting', () => {
    const positions = new PrimaryPositions();
    positions.note(100n, 1_000);
    positions.note(100n, 60_000);
    expect(positions.lagOf(100n, 120_000)).toBe(0);
    expect(positions.lagOf(99n, 120_000)).toBe(119);
  });

  it('forgets what every standby replayed, and keeps at most its limit', () => {
    const positions = new PrimaryPositions(2);
    positions.note(100n, 1_000);
    positions.note(200n, 2_000);
    positions.note(300n, 3_000);
    expect(positions.lagOf(0n, 4_000)).toBe(2); // 100 was dropped for the limit
    positions.forgetUpTo(1_000n);
    positions.note(400n, 5_000);
    expect(positions.lagOf(300n, 6_000)).toBe(1);
  });
});
