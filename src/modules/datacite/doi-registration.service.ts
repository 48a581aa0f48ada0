import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { QueueName } from '../../core/queue/queue-names';
import { IgsnService } from '../samples';
import { SampleRepository } from '../samples';
import { DataCiteBudget } from './datacite-budget';
import { DoiSummaryDto } from './dto/doi-registration.dto';
import { SampleDoiStatus, sampleDoiStatus } from '../samples';
import { SampleDoiRepository } from './sample-doi.repository';

export const DRAIN_JOB = 'drain';

/**
 * Staff actions on DOI registration (API and CLI): re-send one sample or every failed one, and
 * the progress summary. Re-sending marks rows due in PostgreSQL, then wakes a worker through the
 * queue; a lost wake-up only delays delivery until the worker's next sweep.
 */
@Injectable()
export class DoiRegistrationService {
  constructor(
    private readonly sampleDoiRepository: SampleDoiRepository,
    private readonly sampleRepository: SampleRepository,
    private readonly igsnService: IgsnService,
    private readonly budget: DataCiteBudget,
    @InjectQueue(QueueName.DoiRegistration) private readonly queue: Queue,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  private requireEnabled(): void {
    if (!this.config.datacite) {
      throw ApiError.conflict(
        'DataCite registration is not configured (DATACITE_API_URL, DATACITE_REPOSITORY_ID, DATACITE_PASSWORD).',
      );
    }
  }

  /** Re-sending and progress are for staff (and the admin CLI, which runs with the installation's rights). */
  requireStaff(user: AuthenticatedUser): void {
    if (!user.isStaff && !user.isAdmin) throw ApiError.forbidden('Only staff may re-send samples to DataCite.');
  }

  async resendSample(igsn: string): Promise<{ igsn: string; doi: SampleDoiStatus }> {
    const suffix = this.igsnService.parse(igsn);
    const row = suffix ? await this.sampleRepository.byIgsn(suffix) : undefined;
    if (!row) throw ApiError.notFound('Sample not found.');
    this.requireEnabled();
    await this.sampleDoiRepository.resend(row.id);
    await this.wake();
    const stored = await this.sampleDoiRepository.status(row.id);
    return {
      igsn: this.igsnService.toDoi(row.igsn),
      doi: sampleDoiStatus(
        { state: stored?.state ?? null, updatedAt: stored?.updatedAt ?? null, error: stored?.error ?? null },
        true,
      ),
    };
  }

  /**
   * Every failed sample, or (`all`, after moving to another DataCite system) every sample: that
   * system has none of them yet, so nothing counts as registered there.
   */
  async resendMany(all = false): Promise<{ resent: number }> {
    this.requireEnabled();
    const resent = await this.sampleDoiRepository.resendMany(all);
    if (resent) await this.wake();
    return { resent };
  }

  /** Progress and the backlog against the budget: what an institution planning a migration reads. */
  async summary(): Promise<DoiSummaryDto> {
    const [counts, use] = await Promise.all([this.sampleDoiRepository.summary(), this.budget.use()]);
    const since = counts.oldest_pending_since ? Date.parse(counts.oldest_pending_since) : null;
    const hours = (pending: number, per5Min: number) => (per5Min ? (pending / per5Min) * (5 / 60) : 0);
    return {
      enabled: this.config.datacite !== null,
      ...counts,
      oldest_pending_age_seconds: since === null ? null : Math.max(0, Math.round((Date.now() - since) / 1000)),
      estimated_hours_to_drain:
        Math.round(
          (hours(counts.pending_interactive, use.requests_per_5_min) +
            hours(counts.pending_bulk, use.bulk_requests_per_5_min)) *
            100,
        ) / 100,
      budget: {
        requests_per_5_min: use.requests_per_5_min,
        bulk_requests_per_5_min: use.bulk_requests_per_5_min,
        used_last_5_min: use.used_last_5_min,
        bulk_used_last_5_min: use.bulk_used_last_5_min,
        left: Math.max(0, use.requests_per_5_min - use.used_last_5_min),
        bulk_left: Math.max(0, use.bulk_requests_per_5_min - use.bulk_used_last_5_min),
        delivery_rate_per_minute: Math.round((use.delivered_last_5_min / 5) * 10) / 10,
        paused_until: use.paused_until,
      },
    };
  }

  /** One wake-up per second at most, however many callers ask (the job id de-duplicates). */
  async wake(): Promise<void> {
    const second = Math.floor(Date.now() / 1000);
    await this.queue.add(DRAIN_JOB, {}, { jobId: `drain-${second}`, removeOnComplete: true, removeOnFail: true });
  }
}
