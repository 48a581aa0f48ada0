import { BackgroundJobsService, JobCancelledError } from './background-jobs.service';
import { JobCheckpoints } from './job-checkpoints';

/** A jobs service whose stop checks answer when the test says so. */
function fakeJobs() {
  const calls: string[] = [];
  const answers: ((stop: boolean) => void)[] = [];
  const jobs = {
    progress: (id: string, done: number) => {
      calls.push(`progress ${id} ${done}`);
      return Promise.resolve();
    },
    shouldStop: (id: string, attempt: number) => {
      calls.push(`shouldStop ${id} ${attempt}`);
      return new Promise<boolean>((resolve) => answers.push(resolve));
    },
  } as unknown as BackgroundJobsService;
  return { jobs, calls, answers };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('JobCheckpoints', () => {
  it('reports progress and asks for a stop every `every` items, without waiting for the answer', async () => {
    const { jobs, calls, answers } = fakeJobs();
    const checkpoints = new JobCheckpoints(jobs, 'job', 2, 500);
    for (let done = 1; done <= 499; done++) await checkpoints.reached(done);
    expect(calls).toEqual([]);
    await checkpoints.reached(500); // returns while the stop check is unanswered
    await turn();
    expect(calls).toEqual(['progress job 500', 'shouldStop job 2']);
    const next = checkpoints.reached(1000); // reads the answer of the check before
    answers[0](false);
    await next;
    await turn();
    expect(calls.slice(2)).toEqual(['progress job 1000', 'shouldStop job 2']);
    answers[1](false);
    await expect(checkpoints.settle()).resolves.toBeUndefined();
  });

  it('throws JobCancelledError at the checkpoint after the one whose check said stop, or at settle', async () => {
    const { jobs, answers } = fakeJobs();
    const checkpoints = new JobCheckpoints(jobs, 'job', 1, 10);
    await checkpoints.reached(10);
    await turn();
    answers[0](true);
    await expect(checkpoints.reached(20)).rejects.toBeInstanceOf(JobCancelledError);

    const other = fakeJobs();
    const last = new JobCheckpoints(other.jobs, 'job', 1, 10);
    await last.reached(10);
    await turn();
    other.answers[0](true);
    await expect(last.settle()).rejects.toBeInstanceOf(JobCancelledError);
  });
});
