/**
 * Up to this many matching rows a search's `count` is exact; above it, the planner's estimate
 * (`count_exact: false`). Counting more would visit every matching row on every page request.
 * A leaf: the list DTO documents it and the repository applies it.
 */
export const EXACT_COUNT_LIMIT = 10_000;
/** When the planner expects more than this many rows the exact count is not even attempted. */
export const ESTIMATE_ONLY_ABOVE = 2 * EXACT_COUNT_LIMIT;

/**
 * How long the estimated count of the whole public catalogue (the unfiltered public list) is reused
 * before the planner is asked again. It is an estimate already (`count_exact: false`), from
 * statistics refreshed far less often than this; asking the planner on every page cost PostgreSQL
 * about as much as finding the page.
 */
export const CATALOGUE_ESTIMATE_REUSE_MS = 10_000;
/**
 * An estimate is reused only this far above ESTIMATE_ONLY_ABOVE: a catalogue that could shrink into
 * the exactly counted range within CATALOGUE_ESTIMATE_REUSE_MS is asked every time.
 */
export const CATALOGUE_ESTIMATE_REUSE_ABOVE = 2 * ESTIMATE_ONLY_ABOVE;

/**
 * The public catalogue's estimated count, kept by one API process for CATALOGUE_ESTIMATE_REUSE_MS
 * when it is large (CATALOGUE_ESTIMATE_REUSE_ABOVE). Only estimates are kept: an exact count is
 * never reused, so a small catalogue's count follows every write at once.
 */
export class RememberedEstimate {
  private estimate: number | undefined;
  private until = 0;

  /** `now`: a monotonic clock in milliseconds. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The estimate to answer without asking the planner, or undefined. */
  current(): number | undefined {
    return this.now() < this.until ? this.estimate : undefined;
  }

  /** The planner's latest estimate: kept when large, forgotten otherwise. */
  remember(estimate: number): void {
    const large = estimate > CATALOGUE_ESTIMATE_REUSE_ABOVE;
    this.estimate = large ? estimate : undefined;
    this.until = large ? this.now() + CATALOGUE_ESTIMATE_REUSE_MS : 0;
  }
}
