import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Observable, from, lastValueFrom } from 'rxjs';
import { AuthenticatedRequest } from '../../auth/authenticated-user';
import { ReadRouting, userCaller } from './read-routing.service';

/** Methods that do not change anything: their reads may go to a standby. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Runs every HTTP request in a read context: who is calling (after the guards established it) and
 * whether the request writes (any method but GET/HEAD/OPTIONS — its reads stay on the primary).
 * After a writing request of a known caller, their commit position is remembered before the
 * answer leaves, so their next request, through any API process, reads their own write.
 */
@Injectable()
export class ReadRoutingInterceptor implements NestInterceptor {
  constructor(private readonly routing: ReadRouting) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const writes = !SAFE_METHODS.has(request.method);
    const caller = request.user ? userCaller(request.user.userId) : undefined;
    return from(
      this.routing.run({ caller, writes }, async () => {
        try {
          return await lastValueFrom<unknown, undefined>(next.handle(), { defaultValue: undefined });
        } finally {
          // Also after a failure: part of the work may have committed before it.
          if (writes && caller) await this.routing.rememberWrite(caller);
        }
      }),
    );
  }
}

/**
 * Without standbys every read is the primary's and no write position is kept, so a request's read
 * context only says whether it writes (the reason its reads report): set by a plain middleware,
 * without the interceptor's rxjs pipeline and Nest's per-request AsyncResource bindings.
 */
export function readContextWithoutStandbys(routing: ReadRouting) {
  return (req: Request, _res: Response, next: NextFunction): void =>
    routing.run({ writes: !SAFE_METHODS.has(req.method) }, next);
}
