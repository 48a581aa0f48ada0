import { Global, Module } from '@nestjs/common';
import { Metrics } from './metrics';

/** Prometheus metrics of this process (API or worker); served by metricsEndpoint. */
@Global()
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}
