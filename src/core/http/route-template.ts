import type { Request } from 'express';

/**
 * The route a request matched, as its template (`/api/samples/:igsn`), so metrics and logs group
 * requests without one series per id; `(unmatched)` for a 404 on an unknown path.
 */
export function routeTemplate(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  // Middleware mounted for every path (`/api/{*splat}`, the request logger) sets req.route too;
  // no controller route has a wildcard, so a wildcard means no route matched.
  return typeof path === 'string' && !path.includes('*') ? `${req.baseUrl}${path}` : '(unmatched)';
}
