import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '../http/api-error';
import { AuthenticatedRequest, AuthenticatedUser } from './authenticated-user';

/** Who may upload (batches, legacy XML, reservations): upload permission, staff or admin. */
export function mayUpload(user: AuthenticatedUser): boolean {
  return user.uploadPermission || user.isStaff || user.isAdmin;
}

/**
 * Refuses a caller without upload permission before the route's interceptors run — in particular
 * before multer buffers a multipart body in memory, so a stranger's 45 MB upload is answered 403
 * without being read. Runs after the bearer-token guard (global guards come first).
 */
@Injectable()
export class UploadPermissionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToHttp().getRequest<AuthenticatedRequest>().user;
    if (user && mayUpload(user)) return true;
    throw ApiError.forbidden('Uploading batches requires upload permission.');
  }
}
