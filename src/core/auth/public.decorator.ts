import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'sr:is-public';

/**
 * Marks a route (or controller) as reachable without a token; everything else needs one. A valid
 * token sent to a public route still identifies the caller (see CurrentUser).
 */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
