import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
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
  app: INestApplication,
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
