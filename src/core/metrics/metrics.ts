import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DataSource } from 'typeorm';
import { StatementPool, sentStatements } from '../database/statement-count';
import { QUEUE_JOB_STATES, QueueStats } from '../queue/queue-stats';

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const QUEUE_COUNT_TIMEOUT_MS = 2000;
const JOB_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600];

/**
 * The process's Prometheus metrics, in a registry of its own (not prom-client's global one, so
 * several apps can live in one test process). Gauges read their values when scraped.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly jobDuration: Histogram<'queue' | 'outcome'>;

  constructor(@InjectDataSource() dataSource: DataSource, queueStats: QueueStats) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'queue_job_duration_seconds',
      help: 'Background job runs by queue and outcome (completed, failed)',
      labelNames: ['queue', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    });
    // TypeORM's postgres driver keeps its pg.Pool as `master`.
    const pool = () => (dataSource.driver as unknown as { master?: Pool }).master;
    new Gauge({
      name: 'db_pool_connections_in_use',
      help: 'PostgreSQL connections of this process checked out of the pool',
      registers,
      collect() {
        const p = pool();
        this.set(p ? p.totalCount - p.idleCount : 0);
      },
    });
    new Gauge({
      name: 'db_pool_connections_idle',
      help: 'PostgreSQL connections of this process open and idle in the pool',
      registers,
      collect() {
        this.set(pool()?.idleCount ?? 0);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries of this process waiting for a free pooled connection',
      registers,
      collect() {
        this.set(pool()?.waitingCount ?? 0);
      },
    });
    new Counter({
      name: 'db_statements_total',
      help: 'SQL statements this process sent through its PostgreSQL pools since it started, by pool (primary, standby)',
      labelNames: ['pool'],
      registers,
      collect() {
        // The counts live in statement-count.ts (one increment per statement); a scrape copies them.
        this.reset();
        for (const pool of Object.keys(sentStatements) as StatementPool[]) this.inc({ pool }, sentStatements[pool]);
      },
    });
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, failed, completed)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        // Redis down must not hang or fail the scrape: the queue series are left out instead.
        this.reset();
        const counts = await Promise.race([
          queueStats.counts().catch(() => []),
          new Promise<[]>((resolve) => setTimeout(() => resolve([]), QUEUE_COUNT_TIMEOUT_MS).unref()),
        ]);
        for (const queue of counts) {
          for (const state of QUEUE_JOB_STATES) this.set({ queue: queue.queue, state }, queue[state]);
        }
      },
    });
  }
}
