import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { FieldErrors } from '../../core/http/error-body';
import { SampleDeactivationDto } from './dto/sample-deactivation.dto';
import { SampleDto } from './dto/sample.dto';
import { SampleAccessPolicy, SampleCaller } from './sample-access.policy';
import { SampleReader } from './sample-reader';
import { SampleWriteRepository } from './sample-write.repository';
import { DeactivateReason, Sample } from './sample.entity';
import { TEXT_APPEND_SEPARATOR } from './write/sample-write.context';
import { refuseFieldErrors } from './write/sample-write-rules';
import { SampleWriter } from './write/sample-writer';

/** What a deactivation stores: its reason, the comment, and the samples it duplicates. */
interface Deactivation {
  reason: DeactivateReason;
  comment: string | null;
  duplicates: string[] | null;
}

/**
 * POST /api/samples/{igsn}/deactivate/: takes effect at once (no curator step) for whoever may edit
 * the sample; both lookups answer 410 from then on.
 */
@Injectable()
export class SampleDeactivation {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sampleWriter: SampleWriter,
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly reader: SampleReader,
    private readonly policy: SampleAccessPolicy,
    private readonly clock: Clock,
  ) {}

  async deactivate(igsnValue: string, dto: SampleDeactivationDto, user: AuthenticatedUser): Promise<SampleDto> {
    const caller = (await this.policy.caller(user)) as SampleCaller;
    const id = await this.dataSource.transaction(async (manager) => {
      const sample = await this.sampleWriter.lockEditable(manager, igsnValue, caller);
      const { reason, comment, duplicates } = await this.deactivation(dto, sample, caller, manager);
      const now = this.clock.now();
      await this.sampleWriteRepository.update(manager, sample.id, {
        isDeactivated: true,
        deactivateReason: reason,
        deactivateComment: comment,
        deactivateDuplicateIgsns: duplicates,
        deactivatedAt: now,
        updatedAt: now,
      });
      return sample.id;
    });
    // Deactivated, it is nobody's to edit any more: can_edit is false whoever asks.
    return this.reader.readForCaller(id, undefined);
  }

  /**
   * The reason, comment and duplicates of a deactivation body. SESAR2's shape (`deactivate_reason`)
   * requires `other_reason` for `other` and `duplicate_igsns` for `duplicate igsn`; ours keeps
   * `{reason, comment?}` as it was. Each duplicate must be another sample the caller may see.
   */
  private async deactivation(
    dto: SampleDeactivationDto,
    sample: Sample,
    caller: SampleCaller,
    manager: EntityManager,
  ): Promise<Deactivation> {
    const reason = reasonOf(dto);
    const errors: FieldErrors = {};
    const suffixes: string[] = [];
    for (const [index, value] of (dto.duplicate_igsns ?? []).entries()) {
      const row = await this.reader.visibleRowByIgsn(value, caller, manager);
      if (!row) errors[`duplicate_igsns.${index}`] = [`no sample with IGSN ${value} is visible to you`];
      else if (row.igsn === sample.igsn) errors[`duplicate_igsns.${index}`] = ['cannot be the sample itself'];
      else suffixes.push(row.igsn);
    }
    refuseFieldErrors(errors);
    const comment = [dto.other_reason, dto.comment].filter(Boolean).join(TEXT_APPEND_SEPARATOR) || null;
    return { reason, comment, duplicates: suffixes.length ? [...new Set(suffixes)] : null };
  }
}

/** The reason a body gives, in either shape, with what SESAR2's shape requires beside it (400 otherwise). */
function reasonOf(dto: SampleDeactivationDto): DeactivateReason {
  const errors: FieldErrors = {};
  if (dto.reason !== undefined && dto.deactivate_reason !== undefined && dto.reason !== dto.deactivate_reason) {
    errors.deactivate_reason = ['reason and deactivate_reason disagree; send one'];
  }
  const reason = dto.deactivate_reason ?? dto.reason;
  if (reason === undefined) errors.reason = ['is required (or deactivate_reason)'];
  const sesar2 = dto.deactivate_reason !== undefined;
  if (sesar2 && reason === 'other' && !dto.other_reason) errors.other_reason = ['is required when the reason is other'];
  const duplicates = dto.duplicate_igsns ?? [];
  if (duplicates.length && reason !== 'duplicate igsn') {
    errors.duplicate_igsns = ['may be given only with the reason duplicate igsn'];
  } else if (sesar2 && reason === 'duplicate igsn' && !duplicates.length) {
    errors.duplicate_igsns = ['is required when the reason is duplicate igsn'];
  }
  refuseFieldErrors(errors);
  return reason as DeactivateReason;
}
