import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../../core/http/api-error';
import { IgsnService } from '../igsn.service';
import { SampleWriteRepository, isUniqueViolation } from '../sample-write.repository';

/**
 * The 409s of a sample write: an external id another active sample of the owner carries, an IGSN
 * already registered. Each is refused beforehand when it can be, and a write that loses a race for
 * one (the unique index decides) gets the same answer.
 */
@Injectable()
export class SampleWriteConflicts {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly igsnService: IgsnService,
  ) {}

  /**
   * 409 when another active sample of the owner carries the external id: the client's duplicate
   * guard, naming the sample it already has.
   */
  async refuseTakenExternalId(
    manager: EntityManager,
    ownerId: number,
    externalId: string,
    exceptId?: number,
  ): Promise<void> {
    const refusal = (await this.takenExternalIds(manager, ownerId, [externalId], exceptId)).get(externalId);
    if (refusal) throw refusal;
  }

  /**
   * The 409 of each of these external ids that another active sample of the owner carries (the
   * check of refuseTakenExternalId for many samples of one owner, in one statement).
   */
  async takenExternalIds(
    manager: EntityManager,
    ownerId: number,
    externalIds: string[],
    exceptId?: number,
  ): Promise<Map<string, ApiError>> {
    const unique = [...new Set(externalIds)];
    const taken = await this.sampleWriteRepository.igsnsByExternalIds(manager, ownerId, unique, exceptId);
    return new Map([...taken].map(([externalId, igsn]) => [externalId, this.takenExternalId(externalId, igsn)]));
  }

  /**
   * A write that lost a race for an external id (two registrations at once: the unique index
   * decides) becomes the same 409 as one refused beforehand; any other error is returned as is.
   */
  async externalIdViolation(
    error: unknown,
    ownerId: number | null,
    externalId: string | null | undefined,
    exceptId?: number,
  ): Promise<unknown> {
    if (!isUniqueViolation(error, 'uq_sample_owner_external_id') || !externalId || ownerId === null) return error;
    const taken = await this.sampleWriteRepository.igsnsByExternalIds(
      this.dataSource.manager,
      ownerId,
      [externalId],
      exceptId,
    );
    return this.takenExternalId(externalId, taken.get(externalId));
  }

  /** 409 for a supplied IGSN that is registered already. */
  duplicateIgsn(suffix: string): ApiError {
    return ApiError.conflict(`IGSN ${this.igsnService.toDoi(suffix)} is already registered.`, {
      igsn: ['already registered'],
    });
  }

  private takenExternalId(externalId: string, igsn: string | undefined): ApiError {
    const doi = igsn === undefined ? undefined : this.igsnService.toDoi(igsn);
    return ApiError.conflict(
      doi
        ? `external_sample_id "${externalId}" already identifies your sample ${doi}.`
        : `external_sample_id "${externalId}" already identifies another of your samples.`,
      { external_sample_id: [doi ? `already identifies your sample ${doi}` : 'already identifies another sample'] },
    );
  }
}
