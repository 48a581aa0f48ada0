import { isRowId } from '../../core/http/row-id';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { FieldErrors } from '../../core/http/error-body';
import { PageRequest, Paginated, paginate } from '../../core/http/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJobsService, JobCancelledError } from '../background-jobs/background-jobs.service';
import { NotificationsService } from '../notifications/notifications.service';
import { IgsnService } from '../samples';
import { NewOwner, OwnedSelection, SampleOwnershipRepository } from '../samples';
import { CreateTransferDto, TransferDto } from './dto/transfer.dto';
import { OwnershipTransferRepository, TransferParty, TransferRow } from './ownership-transfer.repository';

/** Samples moved per statement (and between progress reports of a job). */
const MOVE_CHUNK = 1000;
/** Samples one transfer may hold: an IGSN list's limit, and the most a code or all_of_mine may name. */
const TRANSFER_MAX_SAMPLES = 1_000_000;

function toDto(row: TransferRow): TransferDto {
  const selection = { ...row.selection };
  if (Array.isArray(selection.igsns)) selection.igsns = selection.igsns.length; // the list can be long
  return {
    id: row.id,
    status: row.status,
    from: { user_id: row.from_user_id, email: row.from_email, team_id: null, team_name: null },
    to: { user_id: row.to_user_id, email: row.to_email, team_id: row.to_team_id, team_name: row.to_team_name },
    selection,
    message: row.message,
    sample_count: row.sample_count,
    direct: row.direct,
    created_at: new Date(row.created_at).toISOString(),
    decided_by: row.decided_by,
    decided_at: row.decided_at ? new Date(row.decided_at).toISOString() : null,
    decision_message: row.decision_message,
    job_id: row.job_id,
    moved_count: row.moved_count,
    skipped_count: row.skipped_count,
  };
}

/**
 * Ownership transfers (issue 26 §3). A transfer fixes, when it is made, which of the sender's own
 * samples it offers; the recipient (a user, or a manager of the receiving team) accepts or rejects
 * it, the sender may cancel it while pending. Accepting moves every offered sample the sender still
 * owns in one transaction, records the move in each sample's history and notifies both sides;
 * more than TRANSFER_INLINE_MAX samples move in an `ownership_transfer` job with progress. Staff
 * transfers (also of someone else's samples, `from_user_email`) are direct: moved at once.
 * Permissions follow the owner columns, so they change with the commit; every sample update
 * queues the sample's DataCite record again (the sample_doi triggers).
 */
@Injectable()
export class TransfersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly ownershipTransferRepository: OwnershipTransferRepository,
    private readonly sampleOwnershipRepository: SampleOwnershipRepository,
    private readonly accountsService: AccountsService,
    private readonly notificationsService: NotificationsService,
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async create(dto: CreateTransferDto, user: AuthenticatedUser): Promise<TransferDto> {
    const staff = user.isStaff || user.isAdmin;
    const selection = this.selection(dto);
    const fromUserId = await this.sender(dto, user, staff);
    const to = await this.recipient(dto, fromUserId);
    const id = await this.dataSource.transaction(async (manager) => {
      const samples = await this.offered(manager, fromUserId, selection);
      const now = this.clock.now();
      const transferId = await this.ownershipTransferRepository.insert(manager, {
        status: 'pending',
        from_user_id: fromUserId,
        to_user_id: to.userId,
        to_team_id: to.teamId,
        selection: dto.igsns
          ? { igsns: dto.igsns }
          : dto.registry_code
            ? { registry_code: dto.registry_code }
            : { all_of_mine: true },
        message: dto.message ?? null,
        sample_count: samples.length,
        direct: staff,
        created_by: user.userId,
        created_at: now,
      });
      await this.ownershipTransferRepository.addSamples(
        manager,
        transferId,
        samples.map((sample) => sample.id),
      );
      const transfer = (await this.ownershipTransferRepository.find(transferId, manager)) as TransferRow;
      if (!staff)
        await this.notifyRecipients(manager, transfer, `${transfer.from_email} offers you ${samples.length} samples`);
      return transferId;
    });
    // Staff transfers are not offered but done: moved now (in a job when large).
    if (staff) return this.accept(id, user, { direct: true });
    return toDto((await this.ownershipTransferRepository.find(id)) as TransferRow);
  }

  /** Exactly one of igsns, registry_code, all_of_mine. */
  private selection(dto: CreateTransferDto): OwnedSelection {
    const given = [dto.igsns !== undefined, dto.registry_code !== undefined, dto.all_of_mine === true].filter(Boolean);
    if (given.length !== 1) {
      throw ApiError.badRequest('Name the samples in one way: igsns, registry_code or all_of_mine.', {
        igsns: ['give exactly one of igsns, registry_code, all_of_mine (true)'],
      });
    }
    if (dto.igsns) {
      const errors: FieldErrors = {};
      const suffixes = dto.igsns.map((value, index) => {
        const suffix = this.igsnService.parse(value);
        if (!suffix) errors[`igsns.${index}`] = ['is not an IGSN of this registry'];
        return suffix ?? '';
      });
      if (Object.keys(errors).length) throw ApiError.badRequest('Validation failed: igsns.', errors);
      return { igsns: suffixes };
    }
    if (dto.registry_code) return { registryCode: dto.registry_code.trim().toUpperCase() };
    return { all: true };
  }

  /** Whose samples: the caller's, or (staff only) the account named by from_user_email. */
  private async sender(dto: CreateTransferDto, user: AuthenticatedUser, staff: boolean): Promise<number> {
    if (dto.from_user_email === undefined) return user.userId;
    if (!staff) throw ApiError.forbidden('Only staff may transfer the samples of another account.');
    const owner = await this.accountsService.findByEmail(dto.from_user_email);
    if (!owner) throw ApiError.invalidField('from_user_email', 'no account has this e-mail address');
    return owner.id;
  }

  private async recipient(dto: CreateTransferDto, fromUserId: number): Promise<NewOwner> {
    if ((dto.to_user_email === undefined) === (dto.to_team === undefined)) {
      throw ApiError.badRequest('Name one recipient: to_user_email or to_team.', {
        to_user_email: ['give exactly one of to_user_email, to_team'],
      });
    }
    if (dto.to_user_email !== undefined) {
      const user = await this.accountsService.findByEmail(dto.to_user_email);
      const active = user && (await this.accountsService.activeUser(user.id));
      if (!active) throw ApiError.invalidField('to_user_email', 'no active account has this e-mail address');
      if (active.id === fromUserId)
        throw ApiError.invalidField('to_user_email', 'is the account the samples belong to');
      return { userId: active.id, teamId: null };
    }
    const value = dto.to_team;
    const team = isRowId(value) || typeof value === 'string' ? await this.accountsService.findTeam(value) : undefined;
    if (!team) throw ApiError.invalidField('to_team', 'no team has this id or name');
    return { userId: null, teamId: team.id };
  }

  /** The sender's samples the selection names; an IGSN that is not one of them is a 400. */
  private async offered(
    manager: EntityManager,
    fromUserId: number,
    selection: OwnedSelection,
  ): Promise<{ id: string; igsn: string }[]> {
    const samples = await this.sampleOwnershipRepository.owned(
      manager,
      fromUserId,
      selection,
      TRANSFER_MAX_SAMPLES + 1,
    );
    if ('igsns' in selection) {
      const found = new Set(samples.map((sample) => sample.igsn));
      const errors: FieldErrors = {};
      selection.igsns.forEach((suffix, index) => {
        if (!found.has(suffix)) errors[`igsns.${index}`] = ['is not a sample of the account transferring'];
      });
      if (Object.keys(errors).length) {
        throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).slice(0, 20).join(', ')}.`, errors);
      }
    }
    const field = 'igsns' in selection ? 'igsns' : 'registryCode' in selection ? 'registry_code' : 'all_of_mine';
    if (!samples.length) throw ApiError.invalidField(field, 'names no sample of the account transferring');
    if (samples.length > TRANSFER_MAX_SAMPLES) {
      throw ApiError.invalidField(field, `names more than ${TRANSFER_MAX_SAMPLES} samples; transfer them in parts`);
    }
    return samples;
  }

  // ---------------------------------------------------------------- reads

  private async party(user: AuthenticatedUser): Promise<TransferParty> {
    const teams = user.teams ?? (await this.accountsService.teamMemberships(user.userId));
    return { userId: user.userId, managedTeamIds: teams.filter((t) => t.role === 'manager').map((t) => t.teamId) };
  }

  async list(
    req: Request,
    user: AuthenticatedUser,
    direction: 'incoming' | 'outgoing' | 'all',
    page: PageRequest,
  ): Promise<Paginated<TransferDto>> {
    const { rows, count } = await this.ownershipTransferRepository.page(await this.party(user), direction, {
      limit: page.pageSize,
      offset: page.offset,
    });
    return paginate(req, page, count, rows.map(toDto));
  }

  /** The transfer when the caller is a party to it (or staff); 404 otherwise. */
  private async visible(id: number, user: AuthenticatedUser, manager?: EntityManager): Promise<TransferRow> {
    const row = await this.ownershipTransferRepository.find(id, manager, manager !== undefined);
    const party = await this.party(user);
    const involved =
      row &&
      (user.isStaff ||
        user.isAdmin ||
        row.from_user_id === user.userId ||
        row.to_user_id === user.userId ||
        (row.to_team_id !== null && party.managedTeamIds.includes(row.to_team_id)));
    if (!row || !involved) throw ApiError.notFound('Transfer not found.');
    return row;
  }

  async get(id: number, user: AuthenticatedUser): Promise<TransferDto> {
    return toDto(await this.visible(id, user));
  }

  // ---------------------------------------------------------------- decisions

  /** Whether the caller may accept or reject: the recipient, a manager of the receiving team (or staff). */
  private async isRecipient(row: TransferRow, user: AuthenticatedUser): Promise<boolean> {
    if (row.to_user_id !== null) return row.to_user_id === user.userId;
    return (await this.party(user)).managedTeamIds.includes(row.to_team_id as number);
  }

  private notPending(row: TransferRow): ApiError {
    return ApiError.conflict(`This transfer is ${row.status}; only a pending transfer can change.`, {
      status: [`is ${row.status}`],
    });
  }

  /** Moves the samples (or queues a job that will); the transfer as it is after. */
  async accept(id: number, user: AuthenticatedUser, options: { direct?: boolean } = {}): Promise<TransferDto> {
    const queued = await this.dataSource.transaction(async (manager) => {
      const row = await this.visible(id, user, manager);
      if (!options.direct && !(await this.isRecipient(row, user))) {
        throw ApiError.forbidden('Only the recipient (or a manager of the receiving team) may accept this transfer.');
      }
      const retry = row.status === 'accepting' && (await this.jobFailed(row.job_id));
      if (row.status !== 'pending' && !retry) throw this.notPending(row);
      if (row.sample_count <= this.config.transfers.inlineMax) {
        await this.execute(manager, row, user.userId);
        return undefined;
      }
      const job = await this.backgroundJobsService.create(manager, {
        jobType: 'ownership_transfer',
        userId: user.userId,
        payload: { transfer_id: row.id },
        totalCount: row.sample_count,
      });
      await this.ownershipTransferRepository.update(manager, row.id, { status: 'accepting', job_id: job.id });
      return job;
    });
    if (queued) await this.backgroundJobsService.enqueue(queued);
    return toDto((await this.ownershipTransferRepository.find(id)) as TransferRow);
  }

  private async jobFailed(jobId: string | null): Promise<boolean> {
    return jobId !== null && (await this.backgroundJobsService.find(jobId))?.status === 'failed';
  }

  async reject(id: number, user: AuthenticatedUser, message?: string): Promise<TransferDto> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.visible(id, user, manager);
      if (!(await this.isRecipient(row, user))) {
        throw ApiError.forbidden('Only the recipient (or a manager of the receiving team) may reject this transfer.');
      }
      if (row.status !== 'pending') throw this.notPending(row);
      await this.ownershipTransferRepository.update(manager, id, {
        status: 'rejected',
        decided_by: user.userId,
        decided_at: this.clock.now(),
        decision_message: message ?? null,
      });
      await this.notify(manager, [row.from_user_id], row, `Your transfer of ${row.sample_count} samples was rejected`);
    });
    return toDto((await this.ownershipTransferRepository.find(id)) as TransferRow);
  }

  async cancel(id: number, user: AuthenticatedUser): Promise<TransferDto> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.visible(id, user, manager);
      if (row.from_user_id !== user.userId && row.created_by !== user.userId) {
        throw ApiError.forbidden('Only the sender may cancel this transfer.');
      }
      if (row.status !== 'pending') throw this.notPending(row);
      await this.ownershipTransferRepository.update(manager, id, {
        status: 'cancelled',
        decided_by: user.userId,
        decided_at: this.clock.now(),
      });
      await this.notifyRecipients(manager, row, `The transfer of ${row.sample_count} samples was cancelled`);
    });
    return toDto((await this.ownershipTransferRepository.find(id)) as TransferRow);
  }

  /**
   * Moves every offered sample the sender still owns, in `manager`'s transaction, and marks the
   * transfer accepted; `onChunk` is told how many were handled so far (a job's progress, and the
   * point where a cancelled job stops).
   */
  private async execute(
    manager: EntityManager,
    row: TransferRow,
    actorId: number,
    onChunk?: (done: number) => Promise<void>,
  ): Promise<void> {
    const to: NewOwner =
      row.to_user_id !== null
        ? { userId: row.to_user_id, teamId: null }
        : { userId: null, teamId: row.to_team_id as number };
    const at = this.clock.now();
    let moved = 0;
    let done = 0;
    for (let after = '0'; ;) {
      const ids = await this.ownershipTransferRepository.sampleIds(manager, row.id, after, MOVE_CHUNK);
      if (!ids.length) break;
      moved += await this.sampleOwnershipRepository.move(manager, ids, row.from_user_id, to, {
        actorId,
        at,
        detail: { transfer_id: row.id },
      });
      done += ids.length;
      after = ids[ids.length - 1];
      await onChunk?.(done);
    }
    await this.ownershipTransferRepository.update(manager, row.id, {
      status: 'accepted',
      decided_by: actorId,
      decided_at: at,
      moved_count: moved,
      skipped_count: row.sample_count - moved,
    });
    const what = `${moved} samples`;
    await this.notify(manager, [row.from_user_id], row, `Your transfer was accepted: ${what} moved`);
    await this.notifyRecipients(manager, row, `${what} from ${row.from_email} are now yours`);
  }

  /** The worker's side of a large acceptance: everything in one transaction, progress outside it. */
  async runJob(jobId: string): Promise<void> {
    const job = await this.backgroundJobsService.start(jobId);
    if (!job) return;
    const transferId = Number(job.payload.transfer_id);
    try {
      await this.dataSource.transaction(async (manager) => {
        const row = await this.ownershipTransferRepository.find(transferId, manager, true);
        if (!row || row.status !== 'accepting' || row.job_id !== jobId) {
          await this.backgroundJobsService.complete(manager, jobId, job.attempts, {
            result: { moved_count: 0 },
            processedCount: 0,
          });
          return;
        }
        await this.backgroundJobsService.progress(jobId, 0, row.sample_count);
        await this.execute(manager, row, job.userId, async (done) => {
          await this.backgroundJobsService.progress(jobId, done);
          if (await this.backgroundJobsService.shouldStop(jobId, job.attempts)) throw new JobCancelledError();
        });
        const after = (await this.ownershipTransferRepository.find(transferId, manager)) as TransferRow;
        await this.backgroundJobsService.complete(manager, jobId, job.attempts, {
          result: { transfer_id: transferId, moved_count: after.moved_count, skipped_count: after.skipped_count },
          processedCount: row.sample_count,
        });
      });
    } catch (error) {
      if (error instanceof JobCancelledError) return;
      throw error;
    }
  }

  // ---------------------------------------------------------------- notifications

  private async notifyRecipients(manager: EntityManager, row: TransferRow, subject: string): Promise<void> {
    const ids =
      row.to_user_id !== null
        ? [row.to_user_id]
        : await this.accountsService.teamManagerIds(row.to_team_id as number, manager);
    await this.notify(manager, ids, row, subject);
  }

  private async notify(manager: EntityManager, userIds: number[], row: TransferRow, subject: string): Promise<void> {
    for (const userId of new Set(userIds)) {
      await this.notificationsService.notify(manager, {
        userId,
        kind: 'ownership_transfer',
        subject,
        body: { transfer_id: row.id, sample_count: row.sample_count, from: row.from_email, message: row.message },
      });
    }
  }
}
