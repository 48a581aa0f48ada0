import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ApiError } from './api-error';
import { NUL_PROBLEM, hostileInputError } from './hostile-input';

/**
 * The NUL and prototype-key check of a multipart form. The global check (refuseNulCharacters) runs before any route,
 * when a multipart body has not been parsed yet: the form's fields only exist once multer has read
 * them. List this interceptor after the FileInterceptor so it sees them (and the file's name).
 */
@Injectable()
export class RefuseNulInFormInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & { file?: { originalname?: string } }>();
    const refused = hostileInputError(req.body);
    if (refused) throw refused;
    if (req.file?.originalname?.includes('\u0000')) throw ApiError.invalidField('file', NUL_PROBLEM);
    return next.handle();
  }
}
