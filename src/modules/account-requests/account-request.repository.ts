import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere } from 'typeorm';
import { AccountRequest, AccountRequestKind, AccountRequestStatus } from './account-request.entity';

/** Which requests a listing shows. */
export interface AccountRequestFilter {
  kind?: AccountRequestKind;
  status?: AccountRequestStatus;
  /** Only this user's requests (anyone but staff sees only their own). */
  userId?: number;
}

/**
 * Every SQL statement of `account_request`. Statements given a manager run in the caller's
 * transaction; the pending-uniqueness rules are the table's (a second pending request fails its
 * insert with a unique violation, which the service turns into a 409).
 */
@Injectable()
export class AccountRequestRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(fields: Partial<AccountRequest>): Promise<AccountRequest> {
    const repository = this.dataSource.getRepository(AccountRequest);
    return repository.save(repository.create(fields));
  }

  /**
   * A page of requests and how many: oldest first (the order a curator works through them), or
   * newest first (a requester's own history).
   */
  async page(
    filter: AccountRequestFilter,
    page: { limit: number; offset: number },
    order: 'oldest' | 'newest' = 'oldest',
  ): Promise<[AccountRequest[], number]> {
    const where: FindOptionsWhere<AccountRequest> = {};
    if (filter.kind) where.kind = filter.kind;
    if (filter.status) where.status = filter.status;
    if (filter.userId !== undefined) where.userId = filter.userId;
    return this.dataSource.getRepository(AccountRequest).findAndCount({
      where,
      order: { id: order === 'oldest' ? 'ASC' : 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  async find(id: number, kind: AccountRequestKind): Promise<AccountRequest | null> {
    return this.dataSource.getRepository(AccountRequest).findOneBy({ id, kind });
  }

  /** The request, row-locked until the transaction ends: two curators deciding it take turns. */
  async lock(manager: EntityManager, id: number, kind: AccountRequestKind): Promise<AccountRequest | null> {
    return manager.findOne(AccountRequest, { where: { id, kind }, lock: { mode: 'pessimistic_write' } });
  }

  async decide(
    manager: EntityManager,
    id: number,
    decision: { status: AccountRequestStatus; decidedAt: Date; decidedBy: number; decisionMessage: string | null },
  ): Promise<AccountRequest> {
    await manager.update(AccountRequest, { id }, decision);
    return manager.findOneByOrFail(AccountRequest, { id });
  }
}
