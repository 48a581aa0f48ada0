import { Injectable } from '@nestjs/common';
import bcrypt from 'bcryptjs';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';

/** A hash compared against when the account does not exist, so timing does not reveal which emails exist. */
const DUMMY_HASH = '$2b$12$C6UzMDM.H6dfI/f/IKcEeO5l1GXMiFq0ZqTs0MBrdfCLVuYNTRFW2';

@Injectable()
export class PasswordHasher {
  constructor(@InjectAppConfig() private readonly config: AppConfig) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.auth.passwordHashRounds);
  }

  async verify(password: string, hash: string | undefined): Promise<boolean> {
    const matches = await bcrypt.compare(password, hash ?? DUMMY_HASH);
    return matches && hash !== undefined;
  }
}
