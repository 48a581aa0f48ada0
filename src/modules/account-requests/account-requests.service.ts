import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { PageRequest } from '../../core/http/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { NotificationsService } from '../notifications/notifications.service';
import { AccountRequest, AccountRequestKind, AccountRequestStatus } from './account-request.entity';
import { AccountRequestRepository } from './account-request.repository';
import { AccountRequestDto } from './dto/account-request.dto';

/** Who asks or decides: the caller as the bearer guard or the page session established them. */
export type RequestCaller = Pick<AuthenticatedUser, 'userId' | 'isStaff' | 'isAdmin' | 'uploadPermission'>;

const WHAT: Record<AccountRequestKind, (request: AccountRequest) => string> = {
  upload_permission: () => 'upload permission',
  registry_code: (request) => `registry code ${request.code ?? ''}`,
};
export const NOT_FOUND: Record<AccountRequestKind, string> = {
  upload_permission: 'Access request not found.',
  registry_code: 'Registry code request not found.',
};

function isCurator(caller: RequestCaller): boolean {
  return caller.isStaff || caller.isAdmin;
}

function pendingTwice(error: unknown, index: string): boolean {
  const driverError = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }) : undefined;
  return driverError?.constraint === index;
}

/** `/^\d+$/` within PostgreSQL's integer, else the request's 404 (an id that cannot exist is not found). */
export function parseRequestId(value: string, kind: AccountRequestKind): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) throw ApiError.notFound(NOT_FOUND[kind]);
  return Number(value);
}

/**
 * Requests a curator decides: upload permission ("API access") and registry codes. Anyone signed in
 * may ask; staff (and admins) see every request and decide, anyone else sees only their own.
 * Approving does what the admin CLI does — grants the permission, or creates the code through
 * AccountsService.createRegistryCode with the CLI's rules and conflicts — in the same transaction
 * that records the decision and notifies the requester, so all three happen or none.
 */
@Injectable()
export class AccountRequestsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accountRequestRepository: AccountRequestRepository,
    private readonly accountsService: AccountsService,
    private readonly notificationsService: NotificationsService,
    private readonly clock: Clock,
  ) {}

  /** Asks for upload permission; 409 when the caller has it or already asked and waits. */
  async requestUploadPermission(caller: RequestCaller, reason: string): Promise<AccountRequestDto> {
    if (caller.uploadPermission) throw ApiError.conflict('You already have upload permission.');
    const request = await this.accountRequestRepository
      .insert({ kind: 'upload_permission', userId: caller.userId, reason, createdAt: this.clock.now() })
      .catch((error: unknown) => {
        if (!pendingTwice(error, 'uq_account_request_pending_permission')) throw error;
        throw ApiError.conflict('You already asked for upload permission; a curator will decide soon.');
      });
    return this.toDto(request);
  }

  /**
   * Asks for a registry code for the caller, or for a team the caller manages (its current role
   * decides). 400 for a malformed code, 403 for a team the caller does not manage (unknown teams
   * included), 409 when the code exists or someone already asked for it.
   */
  async requestRegistryCode(
    caller: RequestCaller,
    input: { code: string; team?: string; reason: string },
  ): Promise<AccountRequestDto> {
    const code = AccountsService.normaliseRegistryCode(input.code);
    let teamId: number | null = null;
    if (input.team !== undefined) {
      const team = (await this.accountsService.managedTeams(caller.userId)).find(
        (candidate) => candidate.name.toLowerCase() === input.team?.toLowerCase(),
      );
      if (!team) {
        throw new ApiError(403, 'You can ask for a registry code only for a team you manage.', {
          team: ['not a team you manage'],
        });
      }
      teamId = team.id;
    }
    if (await this.accountsService.registryCodeExists(code)) {
      throw ApiError.conflict(`Registry code ${code} already exists.`, { code: ['already exists'] });
    }
    const request = await this.accountRequestRepository
      .insert({
        kind: 'registry_code',
        userId: caller.userId,
        code,
        teamId,
        reason: input.reason,
        createdAt: this.clock.now(),
      })
      .catch((error: unknown) => {
        if (!pendingTwice(error, 'uq_account_request_pending_code')) throw error;
        throw ApiError.conflict(`Registry code ${code} has already been asked for.`, {
          code: ['already asked for'],
        });
      });
    return this.toDto(request);
  }

  /** A page of requests, oldest first: every request for staff, the caller's own for anyone else. */
  async list(
    caller: RequestCaller,
    filter: { kind?: AccountRequestKind; status?: AccountRequestStatus },
    page: PageRequest,
  ): Promise<{ count: number; data: AccountRequestDto[] }> {
    const [rows, count] = await this.accountRequestRepository.page(
      { ...filter, ...(isCurator(caller) ? {} : { userId: caller.userId }) },
      { limit: page.pageSize, offset: page.offset },
    );
    return { count, data: await this.toDtos(rows) };
  }

  /** The caller's own requests of both kinds, newest first (their page), at most `limit`. */
  async mine(caller: RequestCaller, limit = 100): Promise<AccountRequestDto[]> {
    const [rows] = await this.accountRequestRepository.page({ userId: caller.userId }, { limit, offset: 0 }, 'newest');
    return this.toDtos(rows);
  }

  /** One request; 404 for a request the caller may not see (someone else's, for anyone but staff). */
  async get(caller: RequestCaller, kind: AccountRequestKind, idValue: string): Promise<AccountRequestDto> {
    const request = await this.accountRequestRepository.find(parseRequestId(idValue, kind), kind);
    if (!request || (!isCurator(caller) && request.userId !== caller.userId)) throw ApiError.notFound(NOT_FOUND[kind]);
    return this.toDto(request);
  }

  async approve(
    caller: RequestCaller,
    kind: AccountRequestKind,
    idValue: string,
    message: string | undefined,
  ): Promise<AccountRequestDto> {
    return this.decide(caller, kind, idValue, 'approved', message?.trim() || null);
  }

  /** Refusing says why: the message is required (400 naming `message`). */
  async refuse(
    caller: RequestCaller,
    kind: AccountRequestKind,
    idValue: string,
    message: string | undefined,
  ): Promise<AccountRequestDto> {
    const said = message?.trim();
    if (!said) {
      throw ApiError.badRequest('Validation failed: message.', {
        message: ['say why, so the requester knows what to do next'],
      });
    }
    return this.decide(caller, kind, idValue, 'refused', said);
  }

  /**
   * Records a curator's decision. The request is row-locked, so of two curators deciding at once
   * the second sees the first's decision (409). Approval's own conflicts (the code was created
   * meanwhile, its namespace is taken, the requester no longer manages the team) leave the request
   * pending and are answered as the CLI answers them.
   */
  private async decide(
    caller: RequestCaller,
    kind: AccountRequestKind,
    idValue: string,
    status: 'approved' | 'refused',
    message: string | null,
  ): Promise<AccountRequestDto> {
    const id = parseRequestId(idValue, kind);
    if (!isCurator(caller)) throw ApiError.forbidden('Only curators (staff) decide requests.');
    const decided = await this.dataSource.transaction(async (manager) => {
      const request = await this.accountRequestRepository.lock(manager, id, kind);
      if (!request) throw ApiError.notFound(NOT_FOUND[kind]);
      if (request.status !== 'pending') throw ApiError.conflict(`This request was already ${request.status}.`);
      if (status === 'approved') {
        if (kind === 'upload_permission') {
          await this.accountsService.grantUploadPermission(manager, request.userId);
        } else {
          await this.checkStillManages(request);
          await this.accountsService.createRegistryCode(
            request.code ?? '',
            request.teamId === null ? { userId: request.userId } : { teamId: request.teamId },
            manager,
          );
        }
      }
      const row = await this.accountRequestRepository.decide(manager, id, {
        status,
        decidedAt: this.clock.now(),
        decidedBy: caller.userId,
        decisionMessage: message,
      });
      await this.notificationsService.notify(manager, {
        userId: row.userId,
        kind: 'account_request_decided',
        subject: `Your request for ${WHAT[kind](row)} was ${status}`,
        body: {
          request_id: row.id,
          request_kind: row.kind,
          status,
          code: row.code,
          message,
        },
      });
      return row;
    });
    return this.toDto(decided);
  }

  /** Roles are current: a team code goes to the team only while the requester still manages it. */
  private async checkStillManages(request: AccountRequest): Promise<void> {
    if (request.teamId === null) return;
    if ((await this.accountsService.teamRole(request.userId, request.teamId)) !== 'manager') {
      throw ApiError.conflict('The requester no longer manages the team the code was asked for.', {
        team: ['requester is no longer a manager'],
      });
    }
  }

  private async toDto(request: AccountRequest): Promise<AccountRequestDto> {
    return (await this.toDtos([request]))[0];
  }

  /** The requests with their requesters', deciders' and teams' names, read in two statements. */
  private async toDtos(requests: AccountRequest[]): Promise<AccountRequestDto[]> {
    const people = await this.accountsService.usersByIds(
      requests.flatMap((request) => [request.userId, ...(request.decidedBy === null ? [] : [request.decidedBy])]),
    );
    const teams = await this.accountsService.teamsByIds(
      requests.flatMap((request) => (request.teamId === null ? [] : [request.teamId])),
    );
    return requests.map((request) => {
      const requester = people.get(request.userId);
      const team = request.teamId === null ? undefined : teams.get(request.teamId);
      const decider = request.decidedBy === null ? undefined : people.get(request.decidedBy);
      return {
        id: request.id,
        kind: request.kind,
        status: request.status,
        reason: request.reason,
        code: request.code,
        team: team ? { id: team.id, name: team.name } : null,
        requester: {
          id: request.userId,
          name: requester?.individual?.label ?? null,
          email: requester?.email ?? null,
          orcid: requester?.orcid ?? null,
        },
        created_at: request.createdAt.toISOString(),
        decided_at: request.decidedAt?.toISOString() ?? null,
        decided_by: decider ? (decider.individual?.label ?? decider.email ?? `user ${decider.id}`) : null,
        decision_message: request.decisionMessage,
      };
    });
  }
}
