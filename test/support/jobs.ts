/** Polls `read` (a job's GET) until the job is completed or failed; throws after `timeoutMs`. */
export async function waitForFinishedJob<T extends { status: string }>(
  read: () => Promise<T>,
  timeoutMs = 60_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const job = await read();
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() - started > timeoutMs) throw new Error(`job still ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
