import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { AppConfig } from '../core/config/app-config';
import { prepareDatabase } from '../core/database/prepare-database';
import { ApiError } from '../core/http/api-error';
import { AccountsService } from '../modules/accounts/accounts.service';
import { ConnectionService } from '../modules/auth/connection.service';
import { TokenService } from '../modules/auth/token.service';
import { DoiRegistrationService } from '../modules/datacite/doi-registration.service';
import { CliModule } from './cli.module';

export type Flags = Record<string, string | true>;

export class CliUsageError extends Error {}

export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--') || arg.length === 2) throw new CliUsageError(`Unexpected argument "${arg}".`);
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

function text(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliUsageError(`--${name} <value> is required.`);
  return value;
}

function optionalText(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new CliUsageError(`--${name} needs a value.`);
  return value;
}

function onlyFlags(flags: Flags, allowed: string[]): void {
  const unknown = Object.keys(flags).filter((name) => !allowed.includes(name));
  if (unknown.length)
    throw new CliUsageError(`Unknown option --${unknown[0]} (allowed: ${allowed.map((a) => `--${a}`).join(' ')}).`);
}

type Command = (
  flags: Flags,
  app: () => Promise<INestApplicationContext>,
  config: AppConfig,
  io: CliOutput,
) => Promise<object>;

/** The environment variable user:create takes the password from when no flag gives it. */
export const PASSWORD_ENV = 'REGISTRY_USER_PASSWORD';

/**
 * The new account's password: `--password-stdin` (the first line of standard input), else
 * `--password P`, else the environment variable PASSWORD_ENV. A password on the command line is
 * visible to every user of the machine (`ps`); the other two are not.
 */
async function password(flags: Flags, io: CliOutput): Promise<string> {
  if (flags['password-stdin'] === true) {
    if (flags.password !== undefined) throw new CliUsageError('Give --password or --password-stdin, not both.');
    const line = (await (io.readStdin?.() ?? Promise.resolve(''))).split(/\r?\n/)[0];
    if (!line) throw new CliUsageError('--password-stdin: standard input held no password.');
    return line;
  }
  if (flags['password-stdin'] !== undefined) throw new CliUsageError('--password-stdin takes no value.');
  if (flags.password !== undefined) return text(flags, 'password');
  const fromEnv = io.env?.[PASSWORD_ENV];
  if (fromEnv) return fromEnv;
  throw new CliUsageError(`Give the password with --password-stdin, ${PASSWORD_ENV} or --password.`);
}

export const COMMANDS: Record<string, { usage: string; run: Command }> = {
  'doi:sync': {
    usage: 'doi:sync (--failed | --all | --igsn IGSN)',
    run: async (flags, app) => {
      onlyFlags(flags, ['failed', 'all', 'igsn']);
      const igsn = optionalText(flags, 'igsn');
      const chosen = [flags.failed === true, flags.all === true, igsn !== undefined].filter(Boolean).length;
      if (chosen !== 1) throw new CliUsageError('Give one of --failed, --all or --igsn.');
      const registration = (await app()).get(DoiRegistrationService);
      if (igsn !== undefined) {
        const sample = await registration.resendSample(igsn);
        return { resent: 1, sample, status: await registration.summary() };
      }
      return { ...(await registration.resendMany(flags.all === true)), status: await registration.summary() };
    },
  },
  'db:migrate': {
    usage: 'db:migrate',
    run: async (flags, _app, config) => {
      onlyFlags(flags, []);
      const result = await prepareDatabase(config);
      return { database_created: result.created, applied_migrations: result.applied };
    },
  },
  'user:create': {
    usage:
      'user:create --email E (--password-stdin | --password P | env REGISTRY_USER_PASSWORD) [--name "First Last"] [--orcid O] [--upload-permission] [--staff] [--admin]',
    run: async (flags, app, _config, io) => {
      onlyFlags(flags, ['email', 'password', 'password-stdin', 'name', 'orcid', 'upload-permission', 'staff', 'admin']);
      const secret = await password(flags, io);
      const user = await (await app()).get(AccountsService).createUser({
        email: text(flags, 'email'),
        password: secret,
        name: optionalText(flags, 'name'),
        orcid: optionalText(flags, 'orcid'),
        uploadPermission: flags['upload-permission'] === true,
        isStaff: flags.staff === true,
        isAdmin: flags.admin === true,
      });
      return {
        id: user.id,
        email: user.email,
        name: user.individual?.label ?? null,
        orcid: user.orcid,
        upload_permission_status: user.uploadPermissionStatus,
        is_staff: user.isStaff,
        is_admin: user.isAdmin,
      };
    },
  },
  'registry-code:create': {
    usage: 'registry-code:create --code IEABC (--owner-email E | --team NAME)',
    run: async (flags, app) => {
      onlyFlags(flags, ['code', 'owner-email', 'team']);
      const code = await (await app()).get(AccountsService).createRegistryCode(text(flags, 'code'), {
        email: optionalText(flags, 'owner-email'),
        team: optionalText(flags, 'team'),
      });
      return { code: code.code, user_owner_id: code.userOwnerId, team_owner_id: code.teamOwnerId };
    },
  },
  'team:create': {
    usage: 'team:create --name NAME',
    run: async (flags, app) => {
      onlyFlags(flags, ['name']);
      const team = await (await app()).get(AccountsService).createTeam(text(flags, 'name'));
      return { id: team.id, name: team.name };
    },
  },
  'team:add-member': {
    usage: 'team:add-member --team NAME --email E --role viewer|editor|manager',
    run: async (flags, app) => {
      onlyFlags(flags, ['team', 'email', 'role']);
      const member = await (
        await app()
      )
        .get(AccountsService)
        .addTeamMember(text(flags, 'team'), text(flags, 'email'), text(flags, 'role'));
      return { team_id: member.teamId, user_id: member.userId, role: member.role };
    },
  },
  'connection:create': {
    usage:
      'connection:create --name NAME --issuer URL --audience AUD (--jwks-url URL | --public-key-file F | --secret S)',
    run: async (flags, app) => {
      onlyFlags(flags, ['name', 'issuer', 'audience', 'jwks-url', 'public-key-file', 'secret']);
      const keyFile = optionalText(flags, 'public-key-file');
      let publicKeyPem: string | undefined;
      if (keyFile !== undefined) {
        try {
          publicKeyPem = readFileSync(keyFile, 'utf8');
        } catch {
          throw new CliUsageError(`Cannot read --public-key-file ${keyFile}.`);
        }
      }
      const connection = await (await app()).get(ConnectionService).create({
        name: text(flags, 'name'),
        issuer: text(flags, 'issuer'),
        audience: text(flags, 'audience'),
        jwksUrl: optionalText(flags, 'jwks-url'),
        publicKeyPem,
        secret: optionalText(flags, 'secret'),
      });
      return { id: connection.id, name: connection.name, issuer: connection.issuer, audience: connection.audience };
    },
  },
  'token:create': {
    usage: 'token:create --email E',
    run: async (flags, app) => {
      onlyFlags(flags, ['email']);
      const context = await app();
      const email = text(flags, 'email');
      const user = await context.get(AccountsService).findByEmail(email);
      if (!user) throw ApiError.notFound(`No user with email ${email}.`);
      if (user.uploadPermissionStatus !== 1) {
        throw ApiError.forbidden(
          'Generating developer tokens requires upload permission (user:create --upload-permission).',
        );
      }
      const pair = await context.get(TokenService).issuePair(user.id, 'developer', null, 'cli');
      return {
        id: pair.id,
        access: pair.access,
        refresh: pair.refresh,
        created_at: pair.createdAt.toISOString(),
        expires_at: pair.expiresAt.toISOString(),
      };
    },
  },
};

export interface CliOutput {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Everything on standard input (for --password-stdin); absent: nothing. */
  readStdin?: () => Promise<string>;
  /** The environment (for REGISTRY_USER_PASSWORD); absent: none. */
  env?: Record<string, string | undefined>;
}

function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.getResponse() as { message: string; errors: Record<string, string[]> };
    const details = Object.entries(body.errors).map(([field, messages]) => `${field}: ${messages.join('; ')}`);
    return details.length && !body.message.includes(':') ? `${body.message} (${details.join(', ')})` : body.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Runs one command; returns the exit code. The Nest context is only started by commands that need it. */
export async function runCli(
  argv: string[],
  loadConfig: AppConfig | (() => AppConfig),
  output: CliOutput,
): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    output.stderr(
      `${name ? `Unknown command "${name}". ` : ''}Usage: npm run cli -- <command> [options] [--field NAME]\n` +
        Object.values(COMMANDS)
          .map((c) => `  ${c.usage}`)
          .join('\n'),
    );
    return 2;
  }
  // Configuration is read only for a real command, so the usage text needs none.
  const config = typeof loadConfig === 'function' ? loadConfig() : loadConfig;
  let context: INestApplicationContext | undefined;
  const app = async () => {
    context ??= await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: ['error'] });
    return context;
  };
  try {
    // `--field NAME` (any command) prints that one field of the result as plain text, for shell
    // variables: ACCESS=$(npm run -s cli -- token:create --email E --field access).
    const { field, ...flags } = parseFlags(rest);
    if (field === true || field === '') throw new CliUsageError('--field needs the name of a field of the result.');
    const result = await command.run(flags, app, config, output);
    if (field === undefined) output.stdout(JSON.stringify(result));
    else if (field in result) output.stdout(String((result as Record<string, unknown>)[field]));
    else throw new CliUsageError(`--field ${field}: the result has ${Object.keys(result).join(', ')}.`);
    return 0;
  } catch (error) {
    output.stderr(
      error instanceof CliUsageError
        ? `${error.message}\nUsage: npm run cli -- ${command.usage}`
        : describeError(error),
    );
    return error instanceof CliUsageError ? 2 : 1;
  } finally {
    await context?.close();
  }
}
