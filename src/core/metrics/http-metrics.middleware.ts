import type { NextFunction, Request, Response } from 'express';
import { routeTemplate } from '../http/route-template';
import { Metrics } from './metrics';

/** Times every request into http_request_duration_seconds{method, route, status}. */
export function httpMetricsMiddleware(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = metrics.httpRequestDuration.startTimer();
    res.once('finish', () => end({ method: req.method, route: routeTemplate(req), status: String(res.statusCode) }));
    next();
  };
}
