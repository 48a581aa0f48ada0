import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { and, empty, raw, sql } from '../../../core/database/sql';
import { BatchTemplate } from '../batch-template.entity';

/** A template row with the names its read shapes show. */
export interface TemplateRow {
  id: number;
  label: string;
  registry_code: string | null;
  object_type_id: number | null;
  object_type: string | null;
  user_owner_id: number | null;
  user_owner: string | null;
  team_owner_id: number | null;
  team_owner: string | null;
  created_by: number | null;
  created_by_name: string | null;
  created_date: Date;
  updated_at: Date;
  is_archived: boolean;
  version: number;
  selected_fields: string[];
  cruise_field_prgrms: string[];
  platforms: string[];
  launch_platforms: string[];
  current_archives: string[];
  original_archives: string[];
  collectors: unknown[];
}

/** Which templates a list returns. */
export interface TemplateFilter {
  /** Only templates this user owns or these teams own; undefined: all (staff). */
  owners?: { userId: number; teamIds: number[] };
  isArchived?: boolean;
}

/** Names come from the accounts and vocabulary tables in the same read (as the sample reader does). */
const TEMPLATE_ROWS = `
  SELECT t.id, t.label, t.registry_code, t.object_type_id, ot.label AS object_type,
         t.user_owner_id, owner_individual.label AS user_owner, t.team_owner_id, team.name AS team_owner,
         t.created_by, creator_individual.label AS created_by_name, t.created_date, t.updated_at,
         t.is_archived, t.version, t.selected_fields, t.cruise_field_prgrms, t.platforms, t.launch_platforms,
         t.current_archives, t.original_archives, t.collectors
    FROM batch_template t
    LEFT JOIN object_type ot ON ot.id = t.object_type_id
    LEFT JOIN registry_user owner ON owner.id = t.user_owner_id
    LEFT JOIN individual owner_individual ON owner_individual.id = owner.individual_id
    LEFT JOIN registry_user creator ON creator.id = t.created_by
    LEFT JOIN individual creator_individual ON creator_individual.id = creator.individual_id
    LEFT JOIN team ON team.id = t.team_owner_id`;

/** Every SQL statement of `batch_template`. */
@Injectable()
export class BatchTemplateRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The filter's templates, newest first. */
  async list(filter: TemplateFilter): Promise<TemplateRow[]> {
    const owners = filter.owners;
    const condition = and(
      owners ? sql`(t.user_owner_id = ${owners.userId} OR t.team_owner_id = ANY(${owners.teamIds}::int[]))` : empty,
      filter.isArchived !== undefined ? sql`t.is_archived = ${filter.isArchived}` : empty,
    );
    const where = condition.isEmpty ? empty : sql` WHERE ${condition}`;
    const { text, values } = sql`${raw(TEMPLATE_ROWS)}${where} ORDER BY t.created_date DESC, t.id DESC`.toQuery();
    return this.dataSource.query<TemplateRow[]>(text, values);
  }

  async findRow(id: number): Promise<TemplateRow | undefined> {
    const rows = await this.dataSource.query<TemplateRow[]>(`${TEMPLATE_ROWS} WHERE t.id = $1`, [id]);
    return rows[0];
  }

  async insert(fields: Partial<BatchTemplate>): Promise<BatchTemplate> {
    return this.dataSource
      .getRepository(BatchTemplate)
      .save(this.dataSource.getRepository(BatchTemplate).create(fields));
  }

  /** Sets these columns and counts a new version. */
  async update(id: number, fields: Partial<BatchTemplate>): Promise<void> {
    await this.dataSource
      .getRepository(BatchTemplate)
      .update({ id }, { ...fields, version: () => 'version + 1', updatedAt: () => 'now()' });
  }
}
