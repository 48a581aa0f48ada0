import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { prepareDatabase } from './core/database/prepare-database';

/**
 * `npm start`: one machine, one command. Applies migrations once, then runs the API and a worker
 * as two child processes. Ctrl-C or SIGTERM is passed on to both, which shut down gracefully;
 * if either dies on its own, the other is stopped too and the exit code says so.
 */
async function main(): Promise<void> {
  const config = bootstrapConfig();
  const result = await prepareDatabase(config);
  if (result.created) process.stdout.write('Created the database.\n');
  for (const name of result.applied) process.stdout.write(`Applied migration ${name}\n`);

  // Children skip the migration step: it has just run.
  const env = { ...process.env, DATABASE_MIGRATE_ON_START: 'false' };
  const children = new Map<string, ChildProcess>([
    ['api', fork(join(__dirname, 'main.js'), { env })],
    ['worker', fork(join(__dirname, 'worker.js'), { env })],
  ]);
  let stopping = false;
  let exitCode = 0;

  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) if (child.exitCode === null) child.kill(signal);
  };

  for (const [name, child] of children) {
    child.on('exit', (code, signal) => {
      children.delete(name);
      if (!stopping) {
        process.stderr.write(`${name} exited unexpectedly (${signal ?? code}); stopping.\n`);
        exitCode = 1;
        stopAll('SIGTERM');
      }
      if (children.size === 0) process.exit(exitCode);
    });
  }
  // In a terminal, Ctrl-C reaches the children too (same process group); forwarding is harmless.
  process.on('SIGINT', () => stopAll('SIGINT'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
