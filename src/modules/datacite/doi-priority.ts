/**
 * The two queues of DOI delivery (issue 27), as stored in `sample_doi.priority`: interactive
 * changes (JSON API, small batches, one staff re-send) go before bulk work (large batches, agent
 * renames touching many samples, re-sending every failed sample).
 */
export const DOI_PRIORITIES = ['interactive', 'bulk'] as const;
export type DoiPriority = (typeof DOI_PRIORITIES)[number];

/** The stored value of a priority (0 sorts first). */
export const priorityValue = (priority: DoiPriority): number => DOI_PRIORITIES.indexOf(priority);
