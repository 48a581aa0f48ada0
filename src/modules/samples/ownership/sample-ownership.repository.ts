import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { empty, sql } from '../../../core/database/sql';

/** Which of a user's samples a transfer offers. */
export type OwnedSelection = { igsns: string[] } | { registryCode: string } | { all: true };

/** Who owns a sample after a move: a user, or a team. */
export type NewOwner = { userId: number; teamId: null } | { userId: null; teamId: number };

/**
 * The statements that change who owns samples, and the samples' history rows that record it. A
 * move only takes samples that still belong to the user who offered them (not deactivated), so a
 * sample moved or retired since the offer is skipped, never taken from its new owner.
 */
@Injectable()
export class SampleOwnershipRepository {
  /** Ids and IGSNs of the user's own samples (user_owner_id; not deactivated) in the selection. */
  async owned(
    manager: EntityManager,
    ownerId: number,
    selection: OwnedSelection,
    limit: number,
  ): Promise<{ id: string; igsn: string }[]> {
    const filter =
      'igsns' in selection
        ? sql`AND s.igsn = ANY(${selection.igsns}::text[])`
        : 'registryCode' in selection
          ? sql`AND s.registry_code = ${selection.registryCode}`
          : empty;
    const { text, values } = sql`SELECT s.id::text AS id, s.igsn FROM sample s
        WHERE s.user_owner_id = ${ownerId} AND NOT s.is_deactivated ${filter}
        ORDER BY s.id LIMIT ${limit}`.toQuery();
    return manager.query(text, values);
  }

  /**
   * Gives the samples among `ids` still owned by `fromUserId` to the new owner (except those whose
   * external_sample_id the new owner already uses), and records one
   * `ownership_transferred` history row each, in the caller's transaction; returns how many moved.
   */
  async move(
    manager: EntityManager,
    ids: string[],
    fromUserId: number,
    to: NewOwner,
    record: { actorId: number; at: Date; detail: Record<string, unknown> },
  ): Promise<number> {
    const [row] = await manager.query<{ moved: number }[]>(
      `WITH old AS (
         SELECT id, user_owner_id, team_owner_id FROM sample o
          WHERE id = ANY($1::bigint[]) AND user_owner_id = $2 AND NOT is_deactivated
            -- An external_sample_id is unique per user owner: a sample whose id the new owner
            -- already uses stays with the sender (skipped, like one the sender no longer owns).
            AND NOT EXISTS (SELECT 1 FROM sample t
                             WHERE t.user_owner_id = $3 AND t.external_sample_id = o.external_sample_id
                               AND NOT t.is_deactivated)
          ORDER BY id FOR NO KEY UPDATE
       ), moved AS (
         UPDATE sample s SET user_owner_id = $3, team_owner_id = $4, updated_at = $5
           FROM old WHERE s.id = old.id
         RETURNING s.id, old.user_owner_id AS from_user_id, old.team_owner_id AS from_team_id
       ), recorded AS (
         INSERT INTO sample_history (sample_id, event, actor_id, detail, created_at)
         SELECT id, 'ownership_transferred', $6,
                $7::jsonb || jsonb_build_object('from_user_id', from_user_id, 'from_team_id', from_team_id,
                                                'to_user_id', $3::int, 'to_team_id', $4::int),
                $5
           FROM moved
         RETURNING 1
       )
       SELECT count(*)::int AS moved FROM recorded`,
      [ids, fromUserId, to.userId, to.teamId, record.at, record.actorId, JSON.stringify(record.detail)],
    );
    return row.moved;
  }

  /** A sample's history, oldest first. */
  async history(
    manager: EntityManager,
    sampleId: string,
  ): Promise<{ event: string; actor_id: number | null; detail: Record<string, unknown>; created_at: Date }[]> {
    return manager.query(
      'SELECT event, actor_id, detail, created_at FROM sample_history WHERE sample_id = $1 ORDER BY id',
      [sampleId],
    );
  }
}
