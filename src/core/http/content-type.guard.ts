import { CanActivate, ExecutionContext, HttpStatus, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ApiError } from './api-error';

const ACCEPTS_KEY = 'sr:accepts-content-types';

/** Declares the media types a route's body may have (default: application/json). */
export const AcceptsContentTypes = (...types: string[]) => SetMetadata(ACCEPTS_KEY, types);

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Refuses a request body in a media type the route does not read with 415, instead of letting it
 * through as an empty object that then fails validation with a misleading message.
 */
@Injectable()
export class ContentTypeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method) || !hasBody(req)) return true;
    const accepted = this.reflector.getAllAndOverride<string[] | undefined>(ACCEPTS_KEY, [
      context.getHandler(),
      context.getClass(),
    ]) ?? ['application/json'];
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (accepted.includes(mediaType) || accepted.includes('*/*')) return true;
    throw new ApiError(
      HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      `Unsupported media type "${mediaType || 'none'}"; send ${accepted.join(' or ')}.`,
    );
  }
}
