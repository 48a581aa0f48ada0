import 'reflect-metadata';
import { runCli } from './cli/commands';
import { bootstrapConfig } from './core/config/bootstrap-config';

/**
 * The admin CLI: `npm run cli -- <command> [--flag value ...]`. Every command prints one JSON
 * object on stdout; bad input prints a message on stderr and exits non-zero.
 */
void runCli(process.argv.slice(2), bootstrapConfig, {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  env: process.env,
}).then((code) => process.exit(code));
