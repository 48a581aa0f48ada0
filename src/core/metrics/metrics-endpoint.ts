import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Registry } from 'prom-client';

/**
 * Serves a registry in Prometheus text format to callers sending `Authorization: Bearer <token>`
 * (METRICS_TOKEN): metrics name queues, routes and volumes, which the public should not see.
 * Others get 401 in the API's error body. `read` gives the text (the registry's own, or the sum over
 * a cluster's API processes: cluster-metrics.ts).
 */
export function metricsEndpoint(
  registry: Registry,
  token: string,
  read: () => Promise<string> = () => registry.metrics(),
) {
  const expected = Buffer.from(`Bearer ${token}`);
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="metrics"' });
      res.end(
        JSON.stringify({ message: 'Metrics need the Authorization header "Bearer <METRICS_TOKEN>".', errors: {} }),
      );
      return;
    }
    const body = await read();
    res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
    res.end(body);
  };
}
