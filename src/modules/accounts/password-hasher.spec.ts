import bcrypt from 'bcryptjs';
import { AppConfig } from '../../core/config/app-config';
import { PasswordHasher } from './password-hasher';

const hasher = (rounds: number) => new PasswordHasher({ auth: { passwordHashRounds: rounds } } as AppConfig);

describe('PasswordHasher', () => {
  it('answers false for an unknown account (compared against a dummy of the configured cost)', async () => {
    expect(await hasher(4).verify('anything', undefined)).toBe(false);
  });

  it('asks for a re-hash when a hash was made with another cost', async () => {
    const four = hasher(4);
    expect(four.needsRehash(await four.hash('secret'))).toBe(false);
    expect(four.needsRehash(await bcrypt.hash('secret', 5))).toBe(true);
    expect(four.needsRehash('not a bcrypt hash')).toBe(true);
  });
});
