import { ChildProcess, fork } from 'node:child_process';
import cluster from 'node:cluster';
import { extname, join } from 'node:path';
import { AppConfig } from './core/config/app-config';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { prepareDatabase } from './core/database/prepare-database';
import { serveClusterMetrics } from './core/metrics/cluster-metrics';
import { WORKER_NODE_FLAGS } from './modules/batches/import/worker-heap';

/** First restart delay; it doubles with each crash inside the window, up to the cap. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

function log(message: string): void {
  process.stderr.write(`[supervisor] ${new Date().toISOString()} ${message}\n`);
}

/** Starts one child process: an API process of the cluster, or the worker. */
type Launch = () => ChildProcess;

/**
 * One child (an API process or the worker) kept running: when it dies on its own it is started
 * again after a back-off while the others keep serving. Crashes older than the window are
 * forgotten; `maxCrashes` inside it means something is wrong for good and the supervisor gives up.
 */
class SupervisedChild {
  private child?: ChildProcess;
  private crashes: number[] = [];
  private restartTimer?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly launch: Launch,
    private readonly config: AppConfig['supervisor'],
    private readonly onGiveUp: (name: string) => void,
    private readonly onStopped: () => void,
  ) {}

  start(): void {
    const child = this.launch();
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
 * `npm start`: one machine, one command. Applies migrations once, then runs API_PROCESSES API
 * processes and one worker (none with START_WORKER=false) as supervised child processes. The API
 * processes are a node:cluster on one port: this process holds the listening socket and hands
 * connections to them in turn, so every core serves requests. Ctrl-C or SIGTERM is passed on to every
 * child, which shut down gracefully; a child that dies on its own is restarted (see SupervisedChild)
 * while the others keep serving.
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
  const { apiProcesses, startWorker } = config.supervisor;
  let running = apiProcesses + (startWorker ? 1 : 0);
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
  // Both kinds of child inherit this process's execArgv, so `node -r ts-node/register src/start-all.ts` works too.
  cluster.setupPrimary({ exec: join(__dirname, `main${ext}`) });
  serveClusterMetrics();
  // Whatever LOG_LEVEL the API processes run at: tells an operator (or a benchmark) when each one serves.
  cluster.on('listening', (worker, address) =>
    log(`API process ${worker.process.pid} listening on ${address.address}:${address.port}`),
  );
  const launchApi: Launch = () => {
    const child = cluster.fork(env).process;
    // A cluster worker's own 'error' events (IPC closed while it exits) must not end the supervisor.
    child.on('error', (error) => log(`API process ${child.pid}: ${error.message}`));
    return child;
  };
  const launchWorker: Launch = () =>
    fork(join(__dirname, `worker${ext}`), { env, execArgv: [...process.execArgv, ...WORKER_NODE_FLAGS] });
  for (let i = 1; i <= apiProcesses; i++) {
    children.push(
      new SupervisedChild(apiProcesses === 1 ? 'api' : `api-${i}`, launchApi, config.supervisor, giveUp, stopped),
    );
  }
  if (startWorker) children.push(new SupervisedChild('worker', launchWorker, config.supervisor, giveUp, stopped));
  log(
    `starting ${apiProcesses} API process${apiProcesses === 1 ? '' : 'es'}` +
      (startWorker ? ' and a worker' : ' (no worker: START_WORKER=false)'),
  );
  for (const child of children) child.start();
  // In a terminal, Ctrl-C reaches the children too (same process group); forwarding is harmless.
  process.on('SIGINT', () => stopAll('SIGINT'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
