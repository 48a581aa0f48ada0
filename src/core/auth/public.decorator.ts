import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';

export const IS_PUBLIC_KEY = 'sr:is-public';

/**
 * Marks a route (or controller) as reachable without a token; everything else needs one. A valid
 * token sent to a public route still identifies the caller (see CurrentUser).
 */
export const Public = () =>
  // Documented as "anonymous, or a bearer token" so clients know a token is optional here.
  applyDecorators(SetMetadata(IS_PUBLIC_KEY, true), ApiSecurity({}), ApiSecurity('bearer'));
