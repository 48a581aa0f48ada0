import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { parseIdempotencyKey } from './background-jobs.service';

/**
 * The parsed `Idempotency-Key` request header (undefined when absent; 400 when malformed). A param
 * decorator of its own rather than `@Headers('idempotency-key')`, which the swagger plugin documents
 * as a second, *required* header beside the optional one `@ApiHeader(IDEMPOTENCY_KEY_HEADER)` declares.
 */
export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  parseIdempotencyKey(context.switchToHttp().getRequest<Request>().headers['idempotency-key']),
);
