import { ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';
import { ApiError } from '../../core/http/api-error';

export const AUTH_THROTTLERS = ['ip', 'account'] as const;

/**
 * Applies the `ip` and `account` throttlers to login, refresh and connection exchange, answering
 * 429 in the error body with a plain `Retry-After` header (the stock guard names it per throttler).
 */
@Injectable()
export class AuthThrottlerGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    const retryAfter = String(Math.max(1, detail.timeToBlockExpire));
    for (const name of AUTH_THROTTLERS) response.removeHeader(`Retry-After-${name}`);
    throw new ApiError(
      HttpStatus.TOO_MANY_REQUESTS,
      `Too many attempts; try again in ${retryAfter} seconds.`,
      {},
      {
        'Retry-After': retryAfter,
      },
    );
  }
}
