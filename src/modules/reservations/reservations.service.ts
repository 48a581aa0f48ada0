import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJobsService, JobCancelledError } from '../background-jobs/background-jobs.service';
import { IgsnMinter } from '../samples';
import { IgsnService } from '../samples';
import { SampleAccessPolicy, SampleCaller } from '../samples';
import { SampleReferences } from '../samples';
import { ResolvedWrite } from '../samples';
import { SampleWriter } from '../samples';
import { Reservation, ReserveSamplesDto } from './dto/reservation.dto';
import { mayUpload } from '../../core/auth/upload-permission.guard';

/** Reservations up to this many IGSNs are minted in the request; larger ones by a background job. */
export const RESERVE_INLINE_MAX = 1000;
/** IGSNs minted and inserted per statement. */
const CHUNK = 1000;
const DEFAULT_PREFIX = 'Reserved';

interface ReservationPayload {
  registry_code: string;
  count: number;
  name_prefix: string;
}

/**
 * Reserved IGSNs (issue 26 §1): minted before fieldwork as samples in the `reserved` state — owned
 * by the caller (and the code's team), never public, not sent to DataCite, without object type or
 * coordinates — through the samples core's minting and bulk insert, so they are ordinary samples
 * in every other respect. They are completed by any write (SampleWriter.prepareUpdate), released
 * by deactivation, and listed with `?metadata_store_status=reserved`.
 */
@Injectable()
export class ReservationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sampleWriter: SampleWriter,
    private readonly references: SampleReferences,
    private readonly minter: IgsnMinter,
    private readonly igsnService: IgsnService,
    private readonly policy: SampleAccessPolicy,
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
  ) {}

  async reserve(
    dto: ReserveSamplesDto,
    user: AuthenticatedUser,
  ): Promise<{ reservation: Reservation; queued: boolean }> {
    if (!mayUpload(user)) {
      throw ApiError.forbidden('Reserving IGSNs requires upload permission.');
    }
    const caller = (await this.policy.caller(user)) as SampleCaller;
    const payload: ReservationPayload = {
      registry_code: dto.registry_code.trim().toUpperCase(),
      count: dto.count,
      name_prefix: dto.name_prefix?.trim() || DEFAULT_PREFIX,
    };
    if (dto.count <= RESERVE_INLINE_MAX) {
      const igsns = await this.dataSource.transaction((manager) => this.mintReserved(manager, caller, payload));
      return {
        reservation: { registry_code: payload.registry_code, count: igsns.length, igsns, job_id: null },
        queued: false,
      };
    }
    const job = await this.dataSource.transaction(async (manager) => {
      await this.references.registryCode(payload.registry_code, caller, manager); // 400/403 now, not a failed job
      return this.backgroundJobsService.create(manager, {
        jobType: 'sample_reservation',
        userId: user.userId,
        payload: { ...payload },
        totalCount: payload.count,
      });
    });
    await this.backgroundJobsService.enqueue(job);
    return {
      reservation: { registry_code: payload.registry_code, count: payload.count, igsns: null, job_id: job.id },
      queued: true,
    };
  }

  /** Mints and inserts the reserved samples in the caller's transaction; their IGSNs (DOI form). */
  private async mintReserved(
    manager: EntityManager,
    caller: SampleCaller,
    payload: ReservationPayload,
    onChunk?: (done: number) => Promise<void>,
  ): Promise<string[]> {
    const { code, teamOwnerId } = await this.references.registryCode(payload.registry_code, caller, manager);
    const igsns: string[] = [];
    const now = this.clock.now();
    while (igsns.length < payload.count) {
      const suffixes = await this.minter.mint(manager, code, Math.min(CHUNK, payload.count - igsns.length));
      const writes: ResolvedWrite[] = suffixes.map((suffix) => ({
        columns: {
          igsn: suffix,
          registryCode: code,
          name: `${payload.name_prefix} ${suffix}`,
          objectTypeId: null,
          metadataStoreStatus: 'reserved',
          publishDate: null,
          userOwnerId: caller.user.userId,
          teamOwnerId,
          createdBy: caller.user.userId,
          createdAt: now,
          updatedAt: now,
        },
      }));
      await this.sampleWriter.insertMany(manager, writes, { minted: writes });
      igsns.push(...writes.map((write) => this.igsnService.toDoi(write.columns.igsn as string)));
      await onChunk?.(igsns.length);
    }
    return igsns;
  }

  /** The worker's side of a large reservation: all of it in one transaction, progress outside it. */
  async runJob(jobId: string): Promise<void> {
    const job = await this.backgroundJobsService.start(jobId);
    if (!job) return;
    const payload = job.payload as unknown as ReservationPayload;
    const user = await this.accountsService.actingUser(job.userId);
    if (!user)
      return this.backgroundJobsService.fail(jobId, 'The account that asked for this reservation is no longer active.');
    const caller = (await this.policy.caller(user)) as SampleCaller;
    try {
      await this.dataSource.transaction(async (manager) => {
        await this.backgroundJobsService.progress(jobId, 0, payload.count);
        const igsns = await this.mintReserved(manager, caller, payload, async (done) => {
          await this.backgroundJobsService.progress(jobId, done);
          if (await this.backgroundJobsService.shouldStop(jobId, job.attempts)) throw new JobCancelledError();
        });
        await this.backgroundJobsService.complete(manager, jobId, job.attempts, {
          result: { registry_code: payload.registry_code, count: igsns.length, igsns },
          processedCount: igsns.length,
        });
      });
    } catch (error) {
      if (error instanceof JobCancelledError) return;
      if (error instanceof ApiError)
        return this.backgroundJobsService.fail(jobId, `The reservation cannot be made: ${error.message}`);
      throw error;
    }
  }
}
