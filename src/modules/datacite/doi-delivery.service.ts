import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { DataCiteConfig } from '../../core/config/integration-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { publicBaseUrl } from '../../core/http/public-address';
import { dataCiteAttributes } from '../metadata-formats/datacite.mapping';
import { REGISTRY_PUBLISHER } from '../metadata-formats/metadata-options';
import { sampleLandingUrl } from '../samples';
import { IgsnService } from '../samples';
import { SampleAccessPolicy } from '../samples';
import { SampleMapper, SampleRow, accessFacts } from '../samples';
import { SampleRepository } from '../samples';
import { SamplePublicRepository } from '../samples';
import { DataCiteBudget } from './datacite-budget';
import { DataCiteClient, DeliveryOutcome, doiDocument } from './datacite.client';
import { DoiMetrics } from './doi-metrics';
import { DoiPriority } from './doi-priority';
import { ClaimedDoi, SampleDoiRepository } from './sample-doi.repository';

/** Rows taken per round at most; each round sends them `concurrency` at a time. */
const CLAIM_BATCH = 100;
/** A round takes about what the budget lets its priority send in this time, so interactive rows wait at most that long. */
const ROUND_SECONDS = 2;
const FIRST_RETRY_MS = 2_000;
const LONGEST_RETRY_MS = 3_600_000;
/** While DataCite is unreachable every worker waits, doubling from the first pause up to the longest. */
const FIRST_PAUSE_MS = 2_000;
const LONGEST_PAUSE_MS = 60_000;
/** Longer waits for the budget end the round: its rows go back, and the sweep after the pause takes them. */
const LONGEST_BUDGET_WAIT_MS = 10_000;

/** Exponential back-off with ±20% jitter, so a recovering DataCite is not hit by every row at once. */
export function retryDelayMs(attempts: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, LONGEST_RETRY_MS);
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempts, 20), LONGEST_RETRY_MS);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function forEachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

/** The pause after `outages` rounds in a row earned only retries. */
export function outagePauseMs(outages: number): number {
  return Math.min(FIRST_PAUSE_MS * 2 ** Math.min(Math.max(outages - 1, 0), 20), LONGEST_PAUSE_MS);
}

/** How many rows of a priority one round takes: about ROUND_SECONDS of its budget, at least one per lane. */
export function roundSize(ratePerSecond: number, concurrency: number): number {
  return Math.max(concurrency, Math.min(CLAIM_BATCH, Math.ceil(ratePerSecond * ROUND_SECONDS)));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface DrainResult {
  delivered: number;
  retrying: number;
  failed: number;
  skipped: number;
}

/**
 * Worker side of DOI registration: takes due rows from the outbox and tells DataCite what each
 * sample is now. Public samples are published (findable); a sample DataCite already has that is
 * no longer public (deactivated, or embargoed again) is hidden; drafts, pending-review and
 * embargoed samples DataCite has never seen are not sent at all.
 */
@Injectable()
export class DoiDeliveryService {
  private readonly logger = new Logger(DoiDeliveryService.name);
  private readonly client: DataCiteClient | null;
  /**
   * Set when a whole round only earned retries (DataCite down or overloaded): until a request
   * succeeds again, each sweep sends a probe of `concurrency` rows instead of working through the
   * backlog request by request, each waiting for its timeout.
   */
  private unreachable = false;
  /** Shutting down: drains end after the round in flight (its unsent rows go back). */
  private stopping = false;

  constructor(
    private readonly sampleDoiRepository: SampleDoiRepository,
    private readonly sampleRepository: SampleRepository,
    private readonly samplePublicRepository: SamplePublicRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly budget: DataCiteBudget,
    private readonly metrics: DoiMetrics,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {
    this.client = config.datacite ? new DataCiteClient(config.datacite) : null;
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  stop(): void {
    this.stopping = true;
  }

  releaseEndedEmbargoes(): Promise<number> {
    return this.sampleDoiRepository.releaseEndedEmbargoes();
  }

  /**
   * Delivers until nothing is due, interactive rows first (rows waiting for a retry stay for a
   * later round). Sleeps instead of polling: while every worker is paused (DataCite unreachable,
   * or 429 Retry-After) it claims nothing and ends; the sweep after the pause starts again.
   */
  async drain(): Promise<DrainResult> {
    const result: DrainResult = { delivered: 0, retrying: 0, failed: 0, skipped: 0 };
    const datacite = this.config.datacite;
    if (!this.client || !datacite) return result;
    // A lease outlives the slowest round (each lane waits for the budget, then for DataCite), so
    // no row is sent twice at once.
    const leaseMs =
      (datacite.timeoutMs + LONGEST_BUDGET_WAIT_MS) * Math.ceil(CLAIM_BATCH / datacite.concurrency) + 60_000;
    while (!this.stopping) {
      if ((await this.budget.pausedForMs()) > LONGEST_BUDGET_WAIT_MS) break;
      const round = await this.claimRound(datacite, leaseMs);
      if (!round) break;
      const before = { ...result };
      await this.deliverAll(round.claims, round.priority, datacite, result);
      this.logger.log(
        `DOI delivery (${round.priority}): ${result.delivered} delivered, ${result.retrying} to retry, ` +
          `${result.failed} rejected, ${result.skipped} not public yet`,
      );
      const answered = result.delivered + result.failed - before.delivered - before.failed;
      const retried = result.retrying - before.retrying;
      await this.budget.countDelivered(result.delivered - before.delivered);
      if (retried > 0 && answered === 0) {
        this.unreachable = true;
        const until = await this.budget.pause(outagePauseMs(await this.budget.recordOutage()));
        this.logger.warn(`DataCite did not answer: every worker waits until ${until.toISOString()}`);
        break;
      }
      if (answered > 0 && this.unreachable) {
        this.unreachable = false;
        await this.budget.endOutage();
      }
    }
    return result;
  }

  /** Due interactive rows, else due bulk rows: a round of one priority. */
  private async claimRound(
    datacite: DataCiteConfig,
    leaseMs: number,
  ): Promise<{ priority: DoiPriority; claims: ClaimedDoi[] } | undefined> {
    for (const priority of ['interactive', 'bulk'] as const) {
      const size = this.unreachable
        ? datacite.concurrency
        : roundSize(this.budget.ratePerSecond(priority), datacite.concurrency);
      const claims = await this.sampleDoiRepository.claimDue(priority, size, leaseMs);
      if (claims.length) return { priority, claims };
    }
    return undefined;
  }

  /** Waits for a request of the budget; false when the wait is too long for this round. */
  private async takeBudget(priority: DoiPriority): Promise<boolean> {
    for (;;) {
      const waitMs = await this.budget.take(priority);
      if (waitMs === 0) return true;
      if (waitMs > LONGEST_BUDGET_WAIT_MS) return false;
      await sleep(waitMs);
    }
  }

  private async deliverAll(
    claims: ClaimedDoi[],
    priority: DoiPriority,
    datacite: DataCiteConfig,
    result: DrainResult,
  ): Promise<void> {
    const now = this.clock.now();
    const rows = new Map(
      (await this.sampleRepository.byIds(claims.map((claim) => Number(claim.sampleId)))).map((row) => [row.id, row]),
    );
    const children = new Map<string, string[]>();
    for (const child of await this.samplePublicRepository.childrenOf(
      [...rows.keys()],
      this.policy.publicCondition('s', now),
    )) {
      const list = children.get(child.parentId) ?? [];
      list.push(this.igsnService.toDoi(child.igsn));
      children.set(child.parentId, list);
    }
    const givenBack: ClaimedDoi[] = [];
    await forEachBounded(claims, datacite.concurrency, async (claim) => {
      const row = rows.get(claim.sampleId);
      const isPublic = row !== undefined && SampleAccessPolicy.isPublic(accessFacts(row), now);
      if (!row || (!isPublic && !claim.atDataCite)) {
        result.skipped += 1;
        await this.sampleDoiRepository.recordDelivered(claim, 'pending', false);
        return;
      }
      if (this.stopping || givenBack.length || !(await this.takeBudget(priority))) {
        givenBack.push(claim);
        return;
      }
      const outcome = await this.send(row, isPublic, children.get(claim.sampleId) ?? []);
      this.metrics.countRequest(priority, outcome.kind);
      if (outcome.kind === 'retry' && outcome.retryAfterMs !== undefined) {
        // DataCite asked this client to wait: every worker does.
        await this.budget.pause(Math.min(outcome.retryAfterMs, LONGEST_RETRY_MS));
      }
      await this.record(claim, outcome, isPublic, result);
    });
    await this.sampleDoiRepository.release(givenBack);
  }

  private async send(row: SampleRow, isPublic: boolean, children: string[]): Promise<DeliveryOutcome> {
    const sample = this.mapper.toDto(row, false);
    const attributes = dataCiteAttributes(sample, { publisher: REGISTRY_PUBLISHER }, { children });
    // No request here: PUBLIC_URL only (registration does not start without it).
    const url = sampleLandingUrl(publicBaseUrl(this.config.publicUrl), sample.igsn);
    return this.client!.putDoi(doiDocument(attributes, url, isPublic ? 'publish' : 'hide'));
  }

  private async record(claim: ClaimedDoi, outcome: DeliveryOutcome, isPublic: boolean, result: DrainResult) {
    switch (outcome.kind) {
      case 'delivered':
        result.delivered += 1;
        return this.sampleDoiRepository.recordDelivered(claim, isPublic ? 'findable' : 'registered', true);
      case 'retry':
        result.retrying += 1;
        return this.sampleDoiRepository.recordRetry(
          claim,
          outcome.message,
          retryDelayMs(claim.attempts, outcome.retryAfterMs),
        );
      case 'rejected':
        result.failed += 1;
        this.logger.warn(`DataCite rejected sample ${claim.sampleId}: ${outcome.message}`);
        return this.sampleDoiRepository.recordRejected(claim, outcome.message);
    }
  }
}
