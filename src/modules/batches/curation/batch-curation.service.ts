import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Clock } from '../../../core/clock';
import { ApiError } from '../../../core/http/api-error';
import { FieldErrors } from '../../../core/http/error-body';
import { NotificationsService } from '../../notifications/notifications.service';
import { DeactivateSampleDto } from '../../samples';
import { IgsnService } from '../../samples';
import { SampleRepository } from '../../samples';
import { SampleCurationRepository } from '../../samples';
import { BatchSampleChange, SampleWriteRepository } from '../../samples';
import { SampleAccessFacts, SampleAccessPolicy, SampleCaller } from '../../samples';
import { BatchesService } from '../batches.service';
import { BatchHistoryRepository } from '../batch-history.repository';
import { BatchHistoryDto } from '../dto/batch.dto';
import { SampleFeedbackEntry } from './batch-feedback.entity';
import { CurationAction } from './curation-event.entity';
import { CurationRepository } from './curation.repository';
import { BatchFeedbackInputDto } from './dto/batch-feedback.dto';
import { BatchDeactivationResult, BatchTransitionResult, FeedbackRecorded } from './dto/curation.dto';

/** Samples named in a refused submit-for-review (the message gives the total). */
const MAX_LISTED_SAMPLES = 100;

interface Caller {
  batch: BatchHistoryDto;
  caller: SampleCaller;
}

interface EventInput {
  action: CurationAction;
  fromState: string | null;
  toState: string | null;
  affectedCount: number;
  reason?: string | null;
  comment?: string | null;
  feedbackId?: number | null;
}

/**
 * A batch is owned the way its samples are (the uploader, and the team of its registry code), so
 * "may this caller change the batch" is the policy's edit rule asked about the batch's owners.
 */
function batchOwnership(batch: BatchHistoryDto): SampleAccessFacts {
  return {
    metadataStoreStatus: 'draft',
    publishDate: null,
    isDeactivated: false,
    userOwnerId: batch.user_owner_id,
    teamOwnerId: batch.team_owner_id,
  };
}

/**
 * Curation transitions of a whole batch: submit for review (draft → pending-review), accept
 * (pending-review → published), deactivate, and feedback. Each is one transaction holding the
 * batch row's lock, changes only the samples SampleAccessPolicy lets the caller edit (its SQL
 * condition is part of every UPDATE), is idempotent (a repeat changes nothing and reports 0), and
 * leaves a curation_event row when it changed something.
 */
@Injectable()
export class BatchCurationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly batchesService: BatchesService,
    private readonly batchHistoryRepository: BatchHistoryRepository,
    private readonly curationRepository: CurationRepository,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly sampleRepository: SampleRepository,
    private readonly sampleCurationRepository: SampleCurationRepository,
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly notificationsService: NotificationsService,
    private readonly clock: Clock,
  ) {}

  /** Curators only: staff (and admins). 404 for a batch the caller cannot see, 403 when they can but are not staff. */
  private async asCurator(idValue: string, user: AuthenticatedUser, action: string): Promise<Caller> {
    const batch = await this.batchesService.requireVisible(idValue, user);
    if (!user.isStaff && !user.isAdmin) throw ApiError.forbidden(`Only curators (staff) may ${action} a batch.`);
    return { batch, caller: (await this.policy.caller(user)) as SampleCaller };
  }

  /** Whoever may edit the batch's samples: owner, team editor or manager, staff, admin. */
  private async asEditor(idValue: string, user: AuthenticatedUser, action: string): Promise<Caller> {
    const batch = await this.batchesService.requireVisible(idValue, user);
    const caller = (await this.policy.caller(user)) as SampleCaller;
    if (!this.policy.canEdit(batchOwnership(batch), caller)) {
      throw ApiError.forbidden(`You may not ${action} this batch: that needs edit permission on its samples.`);
    }
    return { batch, caller };
  }

  /** Serialises transitions of one batch, so counts and events never interleave. */
  private async lockBatch(manager: EntityManager, batchId: number): Promise<void> {
    await this.batchHistoryRepository.lock(manager, batchId);
  }

  private async record(manager: EntityManager, batchId: number, user: AuthenticatedUser, event: EventInput) {
    await this.curationRepository.insertEvent(manager, {
      batchId,
      actorId: user.userId,
      action: event.action,
      fromState: event.fromState,
      toState: event.toState,
      affectedCount: event.affectedCount,
      reason: event.reason ?? null,
      comment: event.comment ?? null,
      feedbackId: event.feedbackId ?? null,
      createdAt: this.clock.now(),
    });
  }

  /**
   * Applies a transition to the batch's samples the caller may edit and counts the rows changed,
   * with the distinct store states they have after it.
   */
  private async updateSamples(
    manager: EntityManager,
    batchId: number,
    caller: SampleCaller,
    change: BatchSampleChange,
  ): Promise<{ count: number; states: string | null }> {
    return this.sampleWriteRepository.updateBatch(manager, batchId, this.policy.editableCondition('s', caller), change);
  }

  /** POST /api/batches/{id}/submit-for-review/: drafts → pending-review; any draft without coordinates blocks all. */
  async submitForReview(idValue: string, user: AuthenticatedUser): Promise<BatchTransitionResult> {
    const { batch, caller } = await this.asEditor(idValue, user, 'submit');
    const count = await this.dataSource.transaction(async (manager) => {
      await this.lockBatch(manager, batch.id);
      const editable = this.policy.editableCondition('s', caller);
      const incomplete = await this.sampleCurationRepository.draftsWithoutCoordinates(
        manager,
        batch.id,
        editable,
        MAX_LISTED_SAMPLES,
      );
      if (incomplete.length) {
        const errors: FieldErrors = {};
        for (const sample of incomplete) {
          errors[this.igsnService.toDoi(sample.igsn)] = (['latitude', 'longitude'] as const)
            .filter((field) => sample[field] === null)
            .map((field) => `${field} is required for review`);
        }
        const total = incomplete[0].total;
        throw ApiError.badRequest(
          `${total} draft sample(s) have no coordinates; latitude and longitude are required for review. ` +
            `Nothing was submitted.${total > incomplete.length ? ` The first ${incomplete.length} are listed.` : ''}`,
          errors,
        );
      }
      const changed = await this.updateSamples(manager, batch.id, caller, {
        to: 'pending-review',
        at: this.clock.now(),
      });
      if (changed.count) {
        await this.record(manager, batch.id, user, {
          action: 'submit_for_review',
          fromState: 'draft',
          toState: 'pending-review',
          affectedCount: changed.count,
        });
      }
      return changed.count;
    });
    return { updated_sample_count: count, batch: await this.batchesService.requireVisible(String(batch.id), user) };
  }

  /** POST /api/batches/{id}/accept/: pending-review → published (publish_date now unless one is set). */
  async accept(idValue: string, user: AuthenticatedUser): Promise<BatchTransitionResult> {
    const { batch, caller } = await this.asCurator(idValue, user, 'accept');
    const count = await this.dataSource.transaction(async (manager) => {
      await this.lockBatch(manager, batch.id);
      const changed = await this.updateSamples(manager, batch.id, caller, { to: 'published', at: this.clock.now() });
      if (changed.count) {
        await this.record(manager, batch.id, user, {
          action: 'accept',
          fromState: 'pending-review',
          toState: 'published',
          affectedCount: changed.count,
        });
      }
      return changed.count;
    });
    return { updated_sample_count: count, batch: await this.batchesService.requireVisible(String(batch.id), user) };
  }

  /** POST /api/batches/{id}/deactivate/: every sample of the batch, whatever its state; never fetched again. */
  async deactivate(
    idValue: string,
    dto: DeactivateSampleDto,
    user: AuthenticatedUser,
  ): Promise<BatchDeactivationResult> {
    const { batch, caller } = await this.asEditor(idValue, user, 'deactivate');
    const count = await this.dataSource.transaction(async (manager) => {
      await this.lockBatch(manager, batch.id);
      const changed = await this.updateSamples(manager, batch.id, caller, {
        to: 'deactivated',
        at: this.clock.now(),
        reason: dto.reason,
        comment: dto.comment ?? null,
      });
      if (changed.count) {
        await this.record(manager, batch.id, user, {
          action: 'deactivate',
          fromState: changed.states,
          toState: 'deactivated',
          affectedCount: changed.count,
          reason: dto.reason,
          comment: dto.comment ?? null,
        });
      }
      return changed.count;
    });
    return { deactivated_sample_count: count, batch: await this.batchesService.requireVisible(String(batch.id), user) };
  }

  /**
   * POST /api/batches/{id}/feedback/: stored, shown on the curation detail, recorded in the audit
   * trail, and notified to the batch owner as their preferences say — all in one transaction.
   */
  async feedback(idValue: string, dto: BatchFeedbackInputDto, user: AuthenticatedUser): Promise<FeedbackRecorded> {
    const { batch, caller } = await this.asCurator(idValue, user, 'give feedback on');
    const general = dto.general_feedback ?? '';
    const items = dto.sample_feedback ?? [];
    if (!general && !items.length) {
      throw ApiError.badRequest('Give general_feedback, sample_feedback, or both.', {
        general_feedback: ['give general feedback or at least one sample_feedback item'],
      });
    }
    await this.dataSource.transaction(async (manager) => {
      await this.lockBatch(manager, batch.id);
      const entries = await this.sampleFeedbackEntries(manager, batch.id, caller, items);
      const saved = await this.curationRepository.insertFeedback(manager, {
        batchId: batch.id,
        authorId: user.userId,
        generalFeedback: general,
        sampleFeedback: entries,
        createdAt: this.clock.now(),
      });
      await this.record(manager, batch.id, user, {
        action: 'feedback',
        fromState: null,
        toState: null,
        affectedCount: entries.length,
        comment: general || null,
        feedbackId: saved.id,
      });
      if (batch.user_owner_id !== null) {
        await this.notificationsService.notify(manager, {
          userId: batch.user_owner_id,
          kind: 'batch_feedback',
          subject: `Curator feedback on batch ${batch.id}${batch.filename ? ` (${batch.filename})` : ''}`,
          body: {
            batch_id: batch.id,
            filename: batch.filename,
            feedback_id: saved.id,
            general_feedback: general,
            sample_feedback: entries,
          },
        });
      }
    });
    return { message: `Feedback on batch ${batch.id} recorded.` };
  }

  /** Every IGSN must name a sample of this batch the caller can see (400 `sample_feedback.N.igsn` otherwise). */
  private async sampleFeedbackEntries(
    manager: EntityManager,
    batchId: number,
    caller: SampleCaller,
    items: NonNullable<BatchFeedbackInputDto['sample_feedback']>,
  ): Promise<SampleFeedbackEntry[]> {
    if (!items.length) return [];
    const suffixes = items.map((item) => this.igsnService.parse(item.igsn));
    const visible = this.policy.visibleCondition('s', caller, this.clock.now());
    const found = await this.sampleCurationRepository.namesInBatch(
      manager,
      batchId,
      suffixes.filter((suffix) => suffix !== undefined),
      visible,
    );
    const names = new Map(found.map((row) => [row.igsn, row.name]));
    const errors: FieldErrors = {};
    items.forEach((item, index) => {
      const suffix = suffixes[index];
      if (suffix === undefined || !names.has(suffix)) {
        errors[`sample_feedback.${index}.igsn`] = [`${item.igsn} is not a sample of batch ${batchId}`];
      }
    });
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    return items.map((item, index) => {
      const suffix = suffixes[index] as string;
      return {
        igsn: this.igsnService.toDoi(suffix),
        name: item.name || (names.get(suffix) ?? ''),
        comment: item.comment,
      };
    });
  }
}
