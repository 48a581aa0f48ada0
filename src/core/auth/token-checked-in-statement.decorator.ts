import { SetMetadata } from '@nestjs/common';

export const TOKEN_CHECKED_IN_STATEMENT_KEY = 'sr:token-checked-in-statement';

/**
 * The route checks a bearer token's pair in its own statement (see UncheckedCaller, CurrentCaller):
 * the bearer guard verifies the token's signature and claims but does not read the pair. Only for
 * routes that run one statement whatever the caller (a fetch by key) and answer nothing before it;
 * their handler must take the caller with `@CurrentCaller()` and confirm it. With standbys
 * (DATABASE_READ_URLS) the guard checks the pair itself as on every route: the route's statement may
 * run on a standby, which cannot vouch for a revocation just made on the primary.
 */
export const TokenCheckedInStatement = () => SetMetadata(TOKEN_CHECKED_IN_STATEMENT_KEY, true);
