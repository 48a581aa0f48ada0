import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'sr:is-public';

/** Marks a route (or controller) as reachable without a token; everything else needs one. */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
