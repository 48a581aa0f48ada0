import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Server, createServer } from 'node:http';
import { AppConfig } from '../config/app-config';
import { InjectAppConfig } from '../config/app-config.token';
import { Metrics } from './metrics';
import { metricsEndpoint } from './metrics-endpoint';

/**
 * The worker has no HTTP API: its metrics get a listener of their own on METRICS_PORT (path
 * /metrics, same METRICS_TOKEN as the API), started only when METRICS_TOKEN is set.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    @InjectAppConfig() private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** Where it listens (the port is 0 in tests, chosen by the system); undefined when off. */
  address(): { host: string; port: number } | undefined {
    const address = this.server?.address();
    return address && typeof address === 'object' ? { host: address.address, port: address.port } : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const token = this.config.metrics.token;
    if (!token) return;
    const serve = metricsEndpoint(this.metrics.registry, token);
    const server = createServer((req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
        serve(req, res).catch((error: unknown) => {
          this.logger.error(`Metrics failed: ${(error as Error).message}`);
          if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ message: 'Internal server error.', errors: {} }));
        });
        return;
      }
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not found.', errors: {} }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metrics.workerPort, this.config.http.host, () => resolve());
    });
    this.server = server;
    this.logger.log(`Worker metrics on http://${this.config.http.host}:${this.address()?.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
