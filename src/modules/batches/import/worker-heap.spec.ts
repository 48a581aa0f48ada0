import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER_NODE_FLAGS } from './worker-heap';

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
