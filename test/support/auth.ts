import { INestApplicationContext } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { Clock } from '../../src/core/clock';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { TokenService } from '../../src/modules/auth/token.service';

export const TEST_PASSWORD = 'correct-horse-battery-staple';

export interface TestUser {
  userId: number;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  auth: { Authorization: string };
}

/** A new account (unique email) with a signed-in session token pair. */
export async function createUserWithToken(
  app: Pick<INestApplicationContext, 'get'>,
  options: { email?: string; isStaff?: boolean; isAdmin?: boolean; uploadPermission?: boolean; orcid?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? `user-${randomUUID()}@example.org`;
  const user = await app.get(AccountsService).createUser({
    email,
    password: TEST_PASSWORD,
    name: 'Test User',
    orcid: options.orcid,
    uploadPermission: options.uploadPermission ?? true,
    isStaff: options.isStaff,
    isAdmin: options.isAdmin,
  });
  const pair = await app.get(TokenService).issuePair(user.id, 'session');
  return {
    userId: user.id,
    email,
    password: TEST_PASSWORD,
    accessToken: pair.access,
    refreshToken: pair.refresh,
    auth: { Authorization: `Bearer ${pair.access}` },
  };
}

/** A clock that stands still until the test moves it. */
export class ManualClock extends Clock {
  private current = new Date();

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

let codeCounter = 0;

/** A fresh registry code (`IE` + 3 characters) unique within this test run. */
export function uniqueRegistryCode(): string {
  codeCounter += 1;
  const n = (process.pid * 97 + Date.now() + codeCounter * 7919) % 36 ** 3;
  return `IE${n.toString(36).toUpperCase().padStart(3, '0')}`;
}

/**
 * An ORCID iD URL no other test uses: an identifier decides which person a collector is, so suites
 * sharing one database must not reuse one under different names.
 */
export function uniqueOrcid(): string {
  const digits = Array.from({ length: 16 }, () => randomInt(10)).join('');
  return `https://orcid.org/${digits.match(/.{4}/g)?.join('-')}`;
}

/** A ROR id (bare form) no other test uses; see uniqueOrcid. */
export function uniqueRor(): string {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  const body = Array.from({ length: 6 }, () => alphabet[randomInt(alphabet.length)]).join('');
  return `0${body}${String(randomInt(100)).padStart(2, '0')}`;
}

/**
 * Creates a registry code no other test holds, for `owner` (a user's email or a team): a fresh code
 * can still be taken by a suite sharing the database, so a 409 means draw another.
 */
export async function createFreshRegistryCode(
  accounts: AccountsService,
  owner: Parameters<AccountsService['createRegistryCode']>[1],
): Promise<string> {
  for (;;) {
    const code = uniqueRegistryCode();
    try {
      await accounts.createRegistryCode(code, owner);
      return code;
    } catch (error) {
      if ((error as { getStatus?: () => number }).getStatus?.() !== 409) throw error;
    }
  }
}

/** A user with upload permission who owns a new registry code. */
export async function createRegistrant(
  app: Pick<INestApplicationContext, 'get'>,
  options: { isStaff?: boolean } = {},
): Promise<TestUser & { code: string }> {
  const user = await createUserWithToken(app, { isStaff: options.isStaff });
  const code = await createFreshRegistryCode(app.get(AccountsService), { email: user.email });
  return { ...user, code };
}
