import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';

/**
 * A connection-issued pair stands for an integration acting for the user, not the user at their
 * developer settings: it may not mint developer tokens (which would outlive the connection) nor
 * revoke the user's credentials (developer tokens, one or all; sessions).
 */
export function refuseConnectionToken(caller: AuthenticatedUser, action: string): void {
  if (caller.tokenKind === 'connection') {
    throw ApiError.forbidden(`Tokens issued to an integration connection cannot ${action}.`);
  }
}

/** The OpenAPI description of that 403. */
export const CONNECTION_TOKEN_FORBIDDEN = (action: string) => ({
  type: ErrorBody,
  example: { message: `Tokens issued to an integration connection cannot ${action}.`, errors: {} },
});
