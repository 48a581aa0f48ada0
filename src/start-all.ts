import { ChildProcess, fork } from 'node:child_process';
import { extname, join } from 'node:path';
import { AppConfig } from './core/config/app-config';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { prepareDatabase } from './core/database/prepare-database';

/** First restart delay; it doubles with each crash inside the window, up to the cap. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

function log(message: string): void {
  process.stderr.write(`[supervisor] ${new Date().toISOString()} ${message}\n`);
}

/**
 * One child (the API or the worker) kept running: when it dies on its own it is started again
 * after a back-off while the other child keeps serving. Crashes older than the window are
 * forgotten; `maxCrashes` inside it means something is wrong for good and the supervisor gives up.
 */
class SupervisedChild {
  private child?: ChildProcess;
  private crashes: number[] = [];
  private restartTimer?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly config: AppConfig['supervisor'],
    private readonly onGiveUp: (name: string) => void,
    private readonly onStopped: () => void,
  ) {}

  start(): void {
    // fork() passes this process's execArgv on, so `node -r ts-node/register src/start-all.ts` works too.
    const child = fork(this.entry, { env: this.env });
    this.child = child;
    log(`${this.name} started (pid ${child.pid})`);
    child.on('exit', (code, signal) => {
      this.child = undefined;
      if (this.stopping) {
        log(`${this.name} stopped (${signal ?? `exit code ${code}`})`);
        this.onStopped();
        return;
      }
      this.crashed(signal ?? `exit code ${code}`);
    });
  }

  private crashed(how: string): void {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((at) => now - at < this.config.crashWindowSeconds * 1000), now];
    const count = this.crashes.length;
    if (count >= this.config.maxCrashes) {
      log(
        `${this.name} exited unexpectedly (${how}): ${count} crashes within ${this.config.crashWindowSeconds} s; giving up`,
      );
      this.stopping = true;
      this.onStopped();
      this.onGiveUp(this.name);
      return;
    }
    const delay = Math.min(FIRST_BACKOFF_MS * 2 ** (count - 1), MAX_BACKOFF_MS);
    log(
      `${this.name} exited unexpectedly (${how}); restarting in ${delay} ms ` +
        `(crash ${count} of ${this.config.maxCrashes} allowed within ${this.config.crashWindowSeconds} s)`,
    );
    this.restartTimer = setTimeout(() => this.start(), delay);
  }

  stop(signal: NodeJS.Signals): void {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.restartTimer);
    if (this.child) this.child.kill(signal);
    else this.onStopped();
  }
}

/**
 * `npm start`: one machine, one command. Applies migrations once, then runs the API and a worker
 * as two supervised child processes. Ctrl-C or SIGTERM is passed on to both, which shut down
 * gracefully; a child that dies on its own is restarted (see SupervisedChild).
 */
async function main(): Promise<void> {
  const config = bootstrapConfig();
  const result = await prepareDatabase(config);
  if (result.created) log('Created the database.');
  for (const name of result.applied) log(`Applied migration ${name}`);

  // Children skip the migration step: it has just run.
  const env = { ...process.env, DATABASE_MIGRATE_ON_START: 'false' };
  const ext = extname(__filename);
  let exitCode = 0;
  let running = 2;
  const children: SupervisedChild[] = [];
  const stopAll = (signal: NodeJS.Signals) => {
    for (const child of children) child.stop(signal);
  };
  const giveUp = () => {
    exitCode = 1;
    stopAll('SIGTERM');
  };
  const stopped = () => {
    if (--running === 0) {
      log(`all children stopped; exiting with code ${exitCode}`);
      process.exit(exitCode);
    }
  };
  for (const name of ['api', 'worker'] as const) {
    const entry = join(__dirname, `${name === 'api' ? 'main' : 'worker'}${ext}`);
    children.push(new SupervisedChild(name, entry, env, config.supervisor, giveUp, stopped));
  }
  for (const child of children) child.start();
  // In a terminal, Ctrl-C reaches the children too (same process group); forwarding is harmless.
  process.on('SIGINT', () => stopAll('SIGINT'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
