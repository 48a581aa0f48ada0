/** The most characters a job's `error_message` (and each row message in its result) holds. */
export const JOB_MESSAGE_MAX_CHARS = 2000;

/**
 * A message cut to JOB_MESSAGE_MAX_CHARS code points, marker included, so a message built from a
 * user's file (thousands of unknown column names, a huge cell echoed back) cannot bloat the job
 * row or every poll of it. The full text stays in the worker's log and in the error report.
 */
export function boundJobMessage(message: string): string {
  const chars = Array.from(message);
  if (chars.length <= JOB_MESSAGE_MAX_CHARS) return message;
  const marker = ` … [truncated: ${chars.length} characters in all]`;
  return chars.slice(0, JOB_MESSAGE_MAX_CHARS - marker.length).join('') + marker;
}
