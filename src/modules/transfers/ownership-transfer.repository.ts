import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Sql, bind, identifier, join, or, raw, sql } from '../../core/database/sql';

export const TRANSFER_STATUSES = ['pending', 'accepting', 'accepted', 'rejected', 'cancelled'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** One row of `ownership_transfer`, with the names of the parties. */
export interface TransferRow {
  id: number;
  status: TransferStatus;
  from_user_id: number;
  from_email: string;
  to_user_id: number | null;
  to_email: string | null;
  to_team_id: number | null;
  to_team_name: string | null;
  selection: Record<string, unknown>;
  message: string | null;
  sample_count: number;
  direct: boolean;
  created_by: number;
  created_at: Date;
  decided_by: number | null;
  decided_at: Date | null;
  decision_message: string | null;
  job_id: string | null;
  moved_count: number | null;
  skipped_count: number | null;
}

const SELECT = `
  SELECT t.*, fu.email AS from_email, tu.email AS to_email, tt.name AS to_team_name
    FROM ownership_transfer t
    JOIN registry_user fu ON fu.id = t.from_user_id
    LEFT JOIN registry_user tu ON tu.id = t.to_user_id
    LEFT JOIN team tt ON tt.id = t.to_team_id`;

/** Whose transfers a list shows: sent by the user, or to them, or to a team they manage. */
export interface TransferParty {
  userId: number;
  managedTeamIds: number[];
}

/** Every statement of `ownership_transfer` and `ownership_transfer_sample`. */
@Injectable()
export class OwnershipTransferRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    row: Pick<
      TransferRow,
      'status' | 'from_user_id' | 'to_user_id' | 'to_team_id' | 'selection' | 'message' | 'sample_count' | 'direct'
    > & { created_by: number; created_at: Date },
  ): Promise<number> {
    const [inserted] = await manager.query<{ id: number }[]>(
      `INSERT INTO ownership_transfer (status, from_user_id, to_user_id, to_team_id, selection, message, sample_count,
                                       direct, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        row.status,
        row.from_user_id,
        row.to_user_id,
        row.to_team_id,
        JSON.stringify(row.selection),
        row.message,
        row.sample_count,
        row.direct,
        row.created_by,
        row.created_at,
      ],
    );
    return inserted.id;
  }

  async addSamples(manager: EntityManager, transferId: number, sampleIds: string[]): Promise<void> {
    await manager.query(
      `INSERT INTO ownership_transfer_sample (transfer_id, sample_id)
       SELECT $1, unnest($2::bigint[])`,
      [transferId, sampleIds],
    );
  }

  /** The transfer; with `lock` (in a transaction) its row is locked until the transaction ends. */
  async find(
    id: number,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<TransferRow | undefined> {
    if (lock) await manager.query('SELECT 1 FROM ownership_transfer WHERE id = $1 FOR UPDATE', [id]);
    const [row] = await manager.query<TransferRow[]>(`${SELECT} WHERE t.id = $1`, [id]);
    return row;
  }

  /** A page of the party's transfers, both directions (or one), newest first, with the total. */
  async page(
    party: TransferParty,
    direction: 'incoming' | 'outgoing' | 'all',
    page: { limit: number; offset: number },
  ): Promise<{ rows: TransferRow[]; count: number }> {
    const me = bind(party.userId);
    const outgoing = sql`t.from_user_id = ${me}`;
    const incoming = sql`(t.to_user_id = ${me} OR t.to_team_id = ANY(${party.managedTeamIds}::int[]))`;
    const where = direction === 'outgoing' ? outgoing : direction === 'incoming' ? incoming : or(outgoing, incoming);
    const rows = await this.run<TransferRow>(
      sql`${raw(SELECT)} WHERE ${where} ORDER BY t.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
    );
    const [{ count }] = await this.run<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM ownership_transfer t WHERE ${where}`,
    );
    return { rows, count };
  }

  private run<T>(statement: Sql, manager: EntityManager = this.dataSource.manager): Promise<T[]> {
    const { text, values } = statement.toQuery();
    return manager.query<T[]>(text, values);
  }

  /** The transfer's samples after `afterId`, in id order, `limit` at a time. */
  async sampleIds(manager: EntityManager, transferId: number, afterId: string, limit: number): Promise<string[]> {
    const rows = await manager.query<{ id: string }[]>(
      `SELECT sample_id::text AS id FROM ownership_transfer_sample
        WHERE transfer_id = $1 AND sample_id > $2::bigint ORDER BY sample_id LIMIT $3`,
      [transferId, afterId, limit],
    );
    return rows.map((row) => row.id);
  }

  async update(
    manager: EntityManager,
    id: number,
    fields: Partial<
      Pick<
        TransferRow,
        'status' | 'decided_by' | 'decided_at' | 'decision_message' | 'job_id' | 'moved_count' | 'skipped_count'
      >
    >,
  ): Promise<void> {
    const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
    if (!entries.length) return;
    const assignments = join(
      entries.map(([key, value]) => sql`${identifier(key)} = ${value}`),
      ', ',
    );
    await this.run(sql`UPDATE ownership_transfer SET ${assignments} WHERE id = ${id}`, manager);
  }
}
