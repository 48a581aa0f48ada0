import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { WORKER_NODE_FLAGS, collectAfterBatch } from './worker-heap';

const ROOT = join(__dirname, '..', '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('WORKER_NODE_FLAGS', () => {
  it('are what every way of starting the worker passes', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['start:worker']).toBe(`node ${WORKER_NODE_FLAGS.join(' ')} dist/src/worker.js`);
    const compose = read('docker-compose.yml');
    const command = `command: [${['node', ...WORKER_NODE_FLAGS, 'dist/src/worker.js'].map((arg) => `'${arg}'`).join(', ')}]`;
    expect(compose).toContain(command);
    // The supervisor (npm start) forks the worker with them.
    expect(read('src/start-all.ts')).toMatch(/execArgv: \[\.\.\.process\.execArgv, \.\.\.WORKER_NODE_FLAGS\]/);
  });
});

describe('collectAfterBatch', () => {
  it('collects without the process having been started with --expose-gc, as often as asked', async () => {
    expect(process.execArgv).not.toContain('--expose-gc');
    const weak = new WeakRef({ rows: Array.from({ length: 1000 }, (_, i) => ({ i })) });
    // A WeakRef's target lives at least until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectAfterBatch();
    collectAfterBatch();
    expect(weak.deref()).toBeUndefined();
    // The collector it calls is V8's own, exposed at run time.
    expect(runInNewContext('typeof gc')).toBe('function');
  });
});
