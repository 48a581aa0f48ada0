import { queueHandlerProblems } from './queue-handlers';

describe('queueHandlerProblems', () => {
  const queues = ['batch-registration', 'sample-export'];

  it('accepts exactly one handler per queue', () => {
    const handlers = [
      { name: 'BatchRegistrationProcessor', queue: 'batch-registration' },
      { name: 'SampleExportProcessor', queue: 'sample-export' },
    ];
    expect(queueHandlerProblems(handlers, queues)).toEqual([]);
  });

  it('names a queue without a handler, one with two, and a handler of an unknown queue', () => {
    const handlers = [
      { name: 'A', queue: 'batch-registration' },
      { name: 'B', queue: 'batch-registration' },
      { name: 'C', queue: 'thumbnails' },
    ];
    expect(queueHandlerProblems(handlers, queues)).toEqual([
      'queue "batch-registration" has 2 handlers (A, B)',
      'queue "sample-export" has no handler',
      'C handles unknown queue "thumbnails"',
    ]);
  });
});
