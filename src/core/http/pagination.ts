import type { Request } from 'express';
import { ApiError } from './api-error';

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
  const page = positiveInteger(query.page, 'page', 1_000_000) ?? 1;
  const pageSize = positiveInteger(query.page_size, 'page_size', options.maxSize) ?? options.defaultSize;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The absolute URL of this request with another page; honours X-Forwarded-Proto/Host under TRUST_PROXY. */
function pageUrl(req: Request, page: number): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.host}`);
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
