import { CATALOGUE_ESTIMATE_REUSE_ABOVE, CATALOGUE_ESTIMATE_REUSE_MS, RememberedEstimate } from './sample-counts';

describe('RememberedEstimate', () => {
  let now = 1_000;
  const remembered = () => new RememberedEstimate(() => now);

  it('reuses a large estimate until it is CATALOGUE_ESTIMATE_REUSE_MS old', () => {
    const estimate = remembered();
    expect(estimate.current()).toBeUndefined();
    estimate.remember(CATALOGUE_ESTIMATE_REUSE_ABOVE + 1);
    now += CATALOGUE_ESTIMATE_REUSE_MS - 1;
    expect(estimate.current()).toBe(CATALOGUE_ESTIMATE_REUSE_ABOVE + 1);
    now += 1;
    expect(estimate.current()).toBeUndefined();
  });

  it('never keeps an estimate near the exactly counted range, and forgets a large one on a small one', () => {
    const estimate = remembered();
    estimate.remember(CATALOGUE_ESTIMATE_REUSE_ABOVE);
    expect(estimate.current()).toBeUndefined();
    estimate.remember(CATALOGUE_ESTIMATE_REUSE_ABOVE * 3);
    expect(estimate.current()).toBe(CATALOGUE_ESTIMATE_REUSE_ABOVE * 3);
    estimate.remember(500);
    expect(estimate.current()).toBeUndefined();
  });
});
