import { Injectable } from '@nestjs/common';
import bcrypt from 'bcryptjs';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';

@Injectable()
export class PasswordHasher {
  /**
   * Compared against when the account does not exist, so timing does not reveal which emails exist:
   * made with the configured cost (a fixed dummy of another cost answered 20 times faster or slower
   * than a real account), once, while the process starts.
   */
  private readonly dummyHash: Promise<string>;

  constructor(@InjectAppConfig() private readonly config: AppConfig) {
    this.dummyHash = bcrypt.hash(randomBytes(16).toString('hex'), config.auth.passwordHashRounds);
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.auth.passwordHashRounds);
  }

  async verify(password: string, hash: string | undefined): Promise<boolean> {
    const matches = await bcrypt.compare(password, hash ?? (await this.dummyHash));
    return matches && hash !== undefined;
  }

  /** True when the hash was made with another cost than the configured one (re-hash it at the next login). */
  needsRehash(hash: string): boolean {
    try {
      return bcrypt.getRounds(hash) !== this.config.auth.passwordHashRounds;
    } catch {
      return true;
    }
  }
}
