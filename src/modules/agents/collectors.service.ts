import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { MatchOptions } from '../vocabularies/common/create-or-match';
import { inIdOrder } from '../vocabularies/common/label-search';
import { trimToNull } from '../../core/http/trim';
import { Collector } from './collector.entity';
import { CollectorInputDto } from './dto/collector-input.dto';
import { IndividualsService } from './individuals.service';
import { InstitutionsService } from './institutions.service';

/**
 * Turns the collectors of a sample write into collector rows: an id refers to an existing row; an
 * inline person and/or organisation is created or matched by label, and the (individual,
 * institution, description) combination is itself created or matched, so repeating a collector
 * never adds rows.
 */
@Injectable()
export class CollectorsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly individuals: IndividualsService,
    private readonly institutions: InstitutionsService,
  ) {}

  /**
   * One collector row per reference, in order, with `individual` and `institution` loaded. Errors
   * name `{field}.{index}…`; `options.field` defaults to `collectors`.
   */
  async resolve(references: (number | CollectorInputDto)[], options: MatchOptions = {}): Promise<Collector[]> {
    const manager = options.manager ?? this.dataSource.manager;
    const list = options.field ?? 'collectors';
    const ids: number[] = [];
    for (const [index, reference] of references.entries()) {
      const field = `${list}.${index}`;
      const input = typeof reference === 'number' ? { id: reference } : reference;
      if (input.id !== undefined && input.id !== null) {
        if (!(await manager.existsBy(Collector, { id: input.id }))) {
          throw ApiError.invalidField(`${field}.id`, `no collector has id ${input.id}`);
        }
        ids.push(input.id);
        continue;
      }
      const shared = { manager, createdBy: options.createdBy };
      const individual = input.individual
        ? await this.individuals.match(input.individual, { ...shared, field: `${field}.individual` })
        : null;
      const institution = input.institution
        ? await this.institutions.match(input.institution, { ...shared, field: `${field}.institution` })
        : null;
      const description = trimToNull(input.description);
      if (!individual && !institution && !description) {
        throw ApiError.invalidField(field, 'name an individual or an institution, or give a description');
      }
      ids.push(await this.matchRow(manager, individual?.id ?? null, institution?.id ?? null, description));
    }
    return this.load(ids, manager);
  }

  /** Collector rows by id (e.g. to show a sample's collectors), in the order given. */
  async load(ids: number[], manager?: EntityManager): Promise<Collector[]> {
    if (!ids.length) return [];
    const rows = await (manager ?? this.dataSource.manager).find(Collector, {
      where: { id: In([...new Set(ids)]) },
      relations: { individual: true, institution: true },
    });
    return inIdOrder(rows, ids);
  }

  private async matchRow(
    manager: EntityManager,
    individualId: number | null,
    institutionId: number | null,
    description: string | null,
  ): Promise<number> {
    const params = [individualId, institutionId, description];
    const find = async () =>
      (
        await manager.query<{ id: number }[]>(
          `SELECT id FROM collector
           WHERE COALESCE(individual_id, 0) = COALESCE($1::int, 0) AND COALESCE(institution_id, 0) = COALESCE($2::int, 0)
             AND md5(COALESCE(description, '')) = md5(COALESCE($3::text, ''))`,
          params,
        )
      )[0]?.id;
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await find();
      if (existing !== undefined) return existing;
      const inserted = await manager.query<{ id: number }[]>(
        `INSERT INTO collector (individual_id, institution_id, description) VALUES ($1, $2, $3)
         ON CONFLICT ((COALESCE(individual_id, 0)), (COALESCE(institution_id, 0)), (md5(COALESCE(description, ''))))
         DO NOTHING RETURNING id`,
        params,
      );
      if (inserted.length) return inserted[0].id;
    }
    throw new Error('create-or-match on collector did not settle');
  }
}
