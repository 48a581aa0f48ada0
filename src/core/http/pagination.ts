import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from './api-error';
import { requestPublicBaseUrl } from './public-address';

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  current_page: number;
  total_pages: number;
  page_size: number;
  data: T[];
}

/** Highest page number accepted (a bound for clients; no listing has this many pages). */
const MAX_PAGE = 1_000_000;

function positiveInteger(value: unknown, name: string, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw ApiError.invalidField(name, `must be an integer between 1 and ${max}`);
  }
  return Number(value);
}

/** `page` (from 1) and `page_size` from a query string; a bad value is a 400 naming the parameter. */
export function parsePageRequest(
  query: Record<string, unknown>,
  options: { defaultSize: number; maxSize: number },
): PageRequest {
  const page = positiveInteger(query.page, 'page', MAX_PAGE) ?? 1;
  const pageSize = positiveInteger(query.page_size, 'page_size', options.maxSize) ?? options.defaultSize;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/**
 * The absolute URL of this request with another page, on the registry's one public base URL
 * (PUBLIC_URL when set, so neither Host nor X-Forwarded-Host can point a client elsewhere).
 */
function pageUrl(req: Request, page: number): string {
  // Concatenated, not resolved: a path starting `//` stays a path, and a PUBLIC_URL path prefix is kept.
  const url = new URL(`${requestPublicBaseUrl(req)}${req.originalUrl}`);
  url.searchParams.set('page', String(page));
  return url.toString();
}

/**
 * The contract's paginated body: `{count, next, previous, current_page, total_pages, page_size, data}`.
 * `hasNext`, when the caller knows it from the page itself, decides `next` instead of the count
 * (which may be an estimate).
 */
export function paginate<T>(
  req: Request,
  request: PageRequest,
  count: number,
  data: T[],
  hasNext?: boolean,
): Paginated<T> {
  const totalPages = Math.max(1, Math.ceil(count / request.pageSize));
  return {
    count,
    next: (hasNext ?? request.page < totalPages) ? pageUrl(req, request.page + 1) : null,
    previous: request.page > 1 ? pageUrl(req, Math.min(request.page - 1, totalPages)) : null,
    current_page: request.page,
    total_pages: totalPages,
    page_size: request.pageSize,
    data,
  };
}

/** Documents `page` and `page_size` with the bounds parsePageRequest enforces for these options. */
export const ApiPageQuery = (options: { defaultSize: number; maxSize: number }) =>
  applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
      description: 'Page number, from 1',
    }),
    ApiQuery({
      name: 'page_size',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: options.maxSize, default: options.defaultSize },
      description: `Results per page (default ${options.defaultSize}, at most ${options.maxSize})`,
    }),
  );
