import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Metrics } from '../../core/metrics/metrics';
import { DataCiteBudget } from './datacite-budget';
import { DOI_PRIORITIES, DoiPriority } from './doi-priority';
import { SampleDoiRepository } from './sample-doi.repository';

/**
 * DOI delivery in Prometheus (issue 27): the backlog by priority and its oldest row, read from the
 * outbox when scraped, the shared budget's use, and this process's requests by outcome. The
 * backlog and budget are the same for every process, so API processes report them once
 * (`aggregator: 'max'`), not summed.
 */
/**
 * One read shared by the gauges of a scrape: the backlog (one SQL statement) and the budget (Redis)
 * each feed two gauges, read once, not once per gauge. A failed read is `undefined`.
 */
function sharedRead<T>(read: () => Promise<T>, ttlMs = 1_000): () => Promise<T | undefined> {
  let last: { at: number; value: Promise<T | undefined> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > ttlMs) last = { at: now, value: read().catch(() => undefined) };
    return last.value;
  };
}

@Injectable()
export class DoiMetrics {
  private readonly requests: Counter<'priority' | 'outcome'>;

  constructor(metrics: Metrics, outbox: SampleDoiRepository, budget: DataCiteBudget) {
    const registers = [metrics.registry];
    const backlogNow = sharedRead(() => outbox.backlog());
    const budgetNow = sharedRead(() => budget.use());
    this.requests = new Counter({
      name: 'datacite_requests_total',
      help: 'Requests to DataCite by priority (interactive, bulk) and outcome (delivered, retry, rejected)',
      labelNames: ['priority', 'outcome'],
      registers,
    });
    new Gauge({
      name: 'datacite_dois_pending',
      help: 'Samples whose latest state DataCite does not have yet, by priority',
      labelNames: ['priority'],
      aggregator: 'max',
      registers,
      async collect() {
        const backlog = await backlogNow();
        if (!backlog) return;
        for (const priority of DOI_PRIORITIES) this.set({ priority }, backlog[priority].pending);
      },
    });
    new Gauge({
      name: 'datacite_oldest_pending_seconds',
      help: 'Age of the oldest pending change, by priority (0 when none waits)',
      labelNames: ['priority'],
      aggregator: 'max',
      registers,
      async collect() {
        const backlog = await backlogNow();
        if (!backlog) return;
        for (const priority of DOI_PRIORITIES) this.set({ priority }, backlog[priority].oldestAgeSeconds);
      },
    });
    new Gauge({
      name: 'datacite_budget_used_requests',
      help: 'DataCite requests made in the last 5 minutes by all workers (all, or bulk only), against the budget',
      labelNames: ['kind'],
      aggregator: 'max',
      registers,
      async collect() {
        const use = await budgetNow();
        if (!use) return;
        this.set({ kind: 'all' }, use.used_last_5_min);
        this.set({ kind: 'bulk' }, use.bulk_used_last_5_min);
      },
    });
    new Gauge({
      name: 'datacite_budget_requests_per_5_min',
      help: 'The configured DataCite budget (all requests, or bulk only)',
      labelNames: ['kind'],
      aggregator: 'max',
      registers,
      async collect() {
        const use = await budgetNow();
        if (!use) return;
        this.set({ kind: 'all' }, use.requests_per_5_min);
        this.set({ kind: 'bulk' }, use.bulk_requests_per_5_min);
      },
    });
  }

  countRequest(priority: DoiPriority, outcome: string): void {
    this.requests.inc({ priority, outcome });
  }
}
