import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Sql, bind, empty, sql } from '../../../core/database/sql';
import { editableOwnedSql } from '../../accounts/owner-access';

/** The shared records a sample names (create-or-match makes one row serve many owners). */
export type SharedAgentTable = 'individual' | 'institution' | 'archive' | 'platform' | 'launch_platform';

/** The samples that name record `id` of each table (as the DataCite triggers find them). */
const SAMPLES_NAMING: Record<SharedAgentTable, (id: Sql) => Sql> = {
  individual: (id) => sql`SELECT sc.sample_id FROM collector c JOIN sample_collector sc ON sc.collector_id = c.id
                WHERE c.individual_id = ${id}`,
  institution: (id) => sql`SELECT sc.sample_id FROM collector c JOIN sample_collector sc ON sc.collector_id = c.id
                 WHERE c.institution_id = ${id}`,
  archive: (id) =>
    sql`SELECT id FROM sample WHERE current_archive_id = ${id} UNION SELECT id FROM sample WHERE original_archive_id = ${id}`,
  platform: (id) => sql`SELECT id FROM sample WHERE platform_id = ${id}`,
  launch_platform: (id) => sql`SELECT id FROM sample WHERE launch_platform_id = ${id}`,
};

/**
 * Who uses a shared record: whether any sample the caller may not edit names it (or, for a person,
 * another account presents it as its public identity). Read-only statements over samples, kept
 * beside the shared records because the answer decides who may edit them (agent-edit.policy.ts).
 */
@Injectable()
export class AgentUsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The caller's teams are those the guard read with the token (none known: every team sample counts as another's). */
  async usedByOthers(table: SharedAgentTable, id: number, user: AuthenticatedUser): Promise<boolean> {
    const record = bind(id);
    const mine = editableOwnedSql('s', user, user.teams ?? []);
    const account =
      table === 'individual'
        ? sql` OR EXISTS (SELECT 1 FROM registry_user u WHERE u.individual_id = ${record} AND u.id <> ${user.userId})`
        : empty;
    const { text, values } = sql`SELECT EXISTS (
         SELECT 1 FROM sample s WHERE s.id IN (${SAMPLES_NAMING[table](record)}) AND NOT ${mine}
       )${account} AS used`.toQuery();
    const [row] = await this.dataSource.query<{ used: boolean }[]>(text, values);
    return row.used;
  }
}
