import { Module } from '@nestjs/common';
import { AppConfig } from '../../core/config/app-config';
import { APP_CONFIG } from '../../core/config/app-config.token';
import { AccountRequestsModule } from '../account-requests/account-requests.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { AccountPagesController } from './account-pages.controller';
import { CsrfTokens } from './csrf';
import { PageNotFoundController } from './page-not-found.controller';
import { AccountPageGuard } from './page-session';
import { RequestPagesController } from './request-pages.controller';

/**
 * Pages for people (outside /api/): sign in with ORCID or a password, developer settings, requests
 * and their review by curators. Server-rendered, one stylesheet, strict CSP, usable without
 * JavaScript; a browser session cookie is how they know who is signed in.
 */
@Module({
  imports: [AuthModule, AccountsModule, AccountRequestsModule],
  // The catch-all 404 last: routes are matched in the order they are registered.
  controllers: [AccountPagesController, RequestPagesController, PageNotFoundController],
  providers: [
    AccountPageGuard,
    {
      provide: CsrfTokens,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new CsrfTokens(config.auth.jwtSecret),
    },
  ],
})
export class AccountPagesModule {}
