import { budgetPacing } from './datacite-budget';
import { outagePauseMs, roundSize } from './doi-delivery.service';

describe('DataCite budget pacing', () => {
  it.each([1, 3, 150, 300, 500, 600, 2500, 3000, 60_000])(
    'never puts more than a budget of %i into a 5-minute window (burst, then one per interval)',
    (perFiveMinutes) => {
      const { intervalUs, burst } = budgetPacing(perFiveMinutes);
      expect(burst).toBeGreaterThanOrEqual(0);
      expect(burst + Math.ceil(300_000_000 / intervalUs)).toBeLessThanOrEqual(perFiveMinutes);
      // …and loses at most the burst to that guarantee.
      expect(burst + Math.ceil(300_000_000 / intervalUs)).toBeGreaterThanOrEqual(perFiveMinutes - 1);
    },
  );

  it('pauses 2 s after an outage, doubling up to a minute', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 30].map(outagePauseMs)).toEqual([2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  });

  it('claims about two seconds of a budget per round, at least one row per lane, at most 100', () => {
    expect(roundSize(500 / 300, 4)).toBe(4);
    expect(roundSize(2500 / 300, 4)).toBe(17);
    expect(roundSize(200, 4)).toBe(100);
  });
});
