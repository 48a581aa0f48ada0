import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { AppConfig, DataCiteConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { publicBaseUrl } from '../../core/http/public-address';
import { dataCiteAttributes } from '../metadata-formats/datacite.mapping';
import { REGISTRY_PUBLISHER, sampleLandingUrl } from '../metadata-formats/metadata-options';
import { IgsnService } from '../samples/igsn.service';
import { SampleAccessPolicy } from '../samples/sample-access.policy';
import { SampleMapper, SampleRow, accessFacts } from '../samples/sample.mapper';
import { SampleRepository } from '../samples/sample.repository';
import { DataCiteClient, DeliveryOutcome, doiDocument } from './datacite.client';
import { ClaimedDoi, SampleDoiRepository } from './sample-doi.repository';

/** Rows taken per round; each round sends them `concurrency` at a time. */
const CLAIM_BATCH = 100;
const FIRST_RETRY_MS = 2_000;
const LONGEST_RETRY_MS = 3_600_000;

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

  constructor(
    private readonly outbox: SampleDoiRepository,
    private readonly samples: SampleRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsn: IgsnService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {
    this.client = config.datacite ? new DataCiteClient(config.datacite) : null;
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  releaseEndedEmbargoes(): Promise<number> {
    return this.outbox.releaseEndedEmbargoes();
  }

  /** Delivers until nothing is due (rows waiting for a retry stay for a later round). */
  async drain(): Promise<DrainResult> {
    const result: DrainResult = { delivered: 0, retrying: 0, failed: 0, skipped: 0 };
    const datacite = this.config.datacite;
    if (!this.client || !datacite) return result;
    // A lease outlives the slowest request a round can make, so no row is sent twice at once.
    const leaseMs = datacite.timeoutMs * Math.ceil(CLAIM_BATCH / datacite.concurrency) + 60_000;
    for (;;) {
      const claims = await this.outbox.claimDue(this.unreachable ? datacite.concurrency : CLAIM_BATCH, leaseMs);
      if (!claims.length) break;
      const before = { ...result };
      await this.deliverAll(claims, datacite, result);
      this.logger.log(
        `DOI delivery: ${result.delivered} delivered, ${result.retrying} to retry, ${result.failed} rejected, ` +
          `${result.skipped} not public yet`,
      );
      const answered = result.delivered + result.failed - before.delivered - before.failed;
      const retried = result.retrying - before.retrying;
      this.unreachable = retried > 0 && answered === 0;
      if (this.unreachable) break;
    }
    return result;
  }

  private async deliverAll(claims: ClaimedDoi[], datacite: DataCiteConfig, result: DrainResult): Promise<void> {
    const now = this.clock.now();
    const rows = new Map(
      (await this.samples.byIds(claims.map((claim) => Number(claim.sampleId)))).map((row) => [row.id, row]),
    );
    const children = new Map<string, string[]>();
    for (const child of await this.samples.childrenOf([...rows.keys()], this.policy.publicCondition('s', now, 0))) {
      const list = children.get(child.parentId) ?? [];
      list.push(this.igsn.toDoi(child.igsn));
      children.set(child.parentId, list);
    }
    await forEachBounded(claims, datacite.concurrency, async (claim) => {
      const row = rows.get(claim.sampleId);
      const isPublic = row !== undefined && SampleAccessPolicy.isPublic(accessFacts(row), now);
      if (!row || (!isPublic && !claim.atDataCite)) {
        result.skipped += 1;
        await this.outbox.recordDelivered(claim, 'pending', false);
        return;
      }
      const outcome = await this.send(row, isPublic, children.get(claim.sampleId) ?? []);
      await this.record(claim, outcome, isPublic, result);
    });
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
        return this.outbox.recordDelivered(claim, isPublic ? 'findable' : 'registered', true);
      case 'retry':
        result.retrying += 1;
        return this.outbox.recordRetry(claim, outcome.message, retryDelayMs(claim.attempts, outcome.retryAfterMs));
      case 'rejected':
        result.failed += 1;
        this.logger.warn(`DataCite rejected sample ${claim.sampleId}: ${outcome.message}`);
        return this.outbox.recordRejected(claim, outcome.message);
    }
  }
}
