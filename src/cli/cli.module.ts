import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../core/config/app-config';
import { CoreModule } from '../core/core.module';
import { AccountsModule } from '../modules/accounts/accounts.module';
import { AuthModule } from '../modules/auth/auth.module';
import { DataCiteModule } from '../modules/datacite/datacite.module';

/** What the admin CLI needs: no HTTP, no processors. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [CoreModule.forRoot(config), AccountsModule, AuthModule, DataCiteModule] };
  }
}
