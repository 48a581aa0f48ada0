import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Sql, sql } from '../../core/database/sql';
import { RegistryCode } from './registry-code.entity';

/**
 * Every SQL statement of `registry_code`, and of who may use a code (its owner, or an editor or
 * manager of its owning team). Statements given a manager run in the caller's transaction.
 */
@Injectable()
export class RegistryCodeRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the code unless it exists; false when it did. A database error (such as the namespace
   * check of migration RegistryCodeNamespaceFree) is thrown as it comes.
   */
  async insertUnlessExists(
    row: Pick<RegistryCode, 'code' | 'userOwnerId' | 'teamOwnerId'>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(RegistryCode)
      .values(row)
      .orIgnore()
      .returning('*')
      .execute();
    return Boolean(inserted.raw) && (inserted.raw as unknown[]).length > 0;
  }

  async findOrFail(code: string, manager: EntityManager = this.dataSource.manager): Promise<RegistryCode> {
    return manager.findOneByOrFail(RegistryCode, { code });
  }

  async find(code: string, manager: EntityManager = this.dataSource.manager): Promise<RegistryCode | null> {
    return manager.findOneBy(RegistryCode, { code });
  }

  /** Every code, in code order. */
  async allCodes(): Promise<string[]> {
    const rows: { code: string }[] = await this.dataSource.query('SELECT code FROM registry_code ORDER BY code');
    return rows.map((row) => row.code);
  }

  async findMany(codes: string[]): Promise<RegistryCode[]> {
    return this.dataSource.getRepository(RegistryCode).findBy({ code: In(codes) });
  }

  /**
   * Longer codes that begin with this one, in code order; the code's row is key-share-locked until
   * the caller's transaction ends first.
   */
  async codesExtending(code: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    // Held until the caller's transaction ends: a longer code created meanwhile waits for it, and
    // then sees what it registered (migration RegistryCodeNamespaceFree); one created before is seen here.
    await manager.query('SELECT 1 FROM registry_code WHERE code = $1 FOR KEY SHARE', [code]);
    const rows: { code: string }[] = await manager.query(
      'SELECT code FROM registry_code WHERE length(code) > length($1) AND left(code, length($1)) = $1 ORDER BY code',
      [code],
    );
    return rows.map((row) => row.code);
  }

  /** Whether the code exists and the user owns it or edits or manages its team (any code with `anyCode`). */
  async usableBy(
    code: string,
    userId: number,
    anyCode: boolean,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM registry_code rc
        WHERE rc.code = $1 AND (
          $3 OR rc.user_owner_id = $2 OR EXISTS (
            SELECT 1 FROM team_member tm
             WHERE tm.team_id = rc.team_owner_id AND tm.user_id = $2 AND tm.role IN ('editor', 'manager')))`,
      [code, userId, anyCode],
    );
    return rows.length > 0;
  }

  /**
   * SQL, for a statement that asks other things too: `{code, team_owner_id}` (jsonb) of the code
   * when it exists and the user may register under it (as usableBy), else NULL.
   */
  usableSql(code: string, userId: number, anyCode: boolean): Sql {
    return sql`SELECT jsonb_build_object('code', rc.code, 'team_owner_id', rc.team_owner_id) FROM registry_code rc
        WHERE rc.code = ${code} AND (
          ${anyCode}::boolean OR rc.user_owner_id = ${userId} OR EXISTS (
            SELECT 1 FROM team_member tm
             WHERE tm.team_id = rc.team_owner_id AND tm.user_id = ${userId} AND tm.role IN ('editor', 'manager')))`;
  }

  /** The codes the user owns or edits or manages the team of, in code order. */
  async usableCodes(userId: number, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows: { code: string }[] = await manager.query(
      `SELECT rc.code FROM registry_code rc
        WHERE rc.user_owner_id = $1 OR EXISTS (
          SELECT 1 FROM team_member tm
           WHERE tm.team_id = rc.team_owner_id AND tm.user_id = $1 AND tm.role IN ('editor', 'manager'))
        ORDER BY rc.code`,
      [userId],
    );
    return rows.map((row) => row.code);
  }

  /**
   * The codes the user holds, with how: owned (`owner`), or owned by a team they belong to (their
   * role there). With `everyCode` (staff), every other code too, as `staff`. In code order.
   */
  async heldBy(
    userId: number,
    everyCode: boolean,
  ): Promise<{ code: string; role: string; team_id: number | null; team_name: string | null }[]> {
    return this.dataSource.query(
      `SELECT rc.code, CASE WHEN rc.user_owner_id = $1 THEN 'owner' ELSE COALESCE(tm.role, 'staff') END AS role,
              t.id AS team_id, t.name::text AS team_name
         FROM registry_code rc
         LEFT JOIN team t ON t.id = rc.team_owner_id
         LEFT JOIN team_member tm ON tm.team_id = rc.team_owner_id AND tm.user_id = $1
        WHERE $2 OR rc.user_owner_id = $1 OR tm.user_id IS NOT NULL
        ORDER BY rc.code`,
      [userId, everyCode],
    );
  }
}
