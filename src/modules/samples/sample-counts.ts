/**
 * Up to this many matching rows a search's `count` is exact; above it, the planner's estimate
 * (`count_exact: false`). Counting more would visit every matching row on every page request.
 * A leaf: the list DTO documents it and the repository applies it.
 */
export const EXACT_COUNT_LIMIT = 10_000;
/** When the planner expects more than this many rows the exact count is not even attempted. */
export const ESTIMATE_ONLY_ABOVE = 2 * EXACT_COUNT_LIMIT;
