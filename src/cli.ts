import 'reflect-metadata';
import { bootstrapConfig } from './core/config/bootstrap-config';
import { prepareDatabase } from './core/database/prepare-database';

/**
 * The admin CLI: `npm run cli -- <command> [--flag value ...]`. Every command prints one JSON
 * object on stdout; bad input prints a message on stderr and exits non-zero.
 */
type Flags = Record<string, string | true>;
type Command = (flags: Flags) => Promise<unknown>;

export class CliUsageError extends Error {}

export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new CliUsageError(`Unexpected argument "${arg}".`);
    const name = arg.slice(2);
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = true;
    else {
      flags[name] = next;
      i++;
    }
  }
  return flags;
}

const commands: Record<string, Command> = {
  'db:migrate': async () => {
    const result = await prepareDatabase(bootstrapConfig());
    return { database_created: result.created, applied_migrations: result.applied };
  },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(
      `Usage: npm run cli -- <command> [--flag value ...]\nCommands: ${Object.keys(commands).join(', ')}\n`,
    );
    return 2;
  }
  try {
    const result = await command(parseFlags(rest));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
