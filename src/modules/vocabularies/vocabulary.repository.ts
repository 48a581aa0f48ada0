import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { DataSource, EntityManager, EntityTarget, FindOptionsRelations } from 'typeorm';
import { LabelSearch } from './common/label-search';
import { LabelledRowRepository } from './common/labelled-row.repository';
import { Country } from './entities/country.entity';
import { ObjectType } from './entities/object-type.entity';

/**
 * Every SQL statement of the seeded vocabularies (countries, object types, the flat term tables,
 * geologic time scales, agent role types): read-only lookups. Statements given a manager run in
 * the caller's transaction.
 */
@Injectable()
export class VocabularyRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly labelledRowRepository: LabelledRowRepository,
    private readonly routing: ReadRouting,
  ) {}

  /** The rows a search matches, best first (see LabelledRowRepository.searchIds); a standby may answer. */
  async search<T extends { id: number }>(
    entity: EntityTarget<T>,
    search: Omit<LabelSearch, 'table'>,
    relations?: FindOptionsRelations<T>,
  ): Promise<T[]> {
    const table = this.dataSource.getRepository(entity).metadata.tableName;
    return this.routing.read(async (source) => {
      const ids = await this.labelledRowRepository.searchIds({ ...search, table }, source.manager);
      return this.labelledRowRepository.loadInIdOrder(entity, ids, relations, source.manager);
    });
  }

  /** The row whose label is `label`, case-insensitively. */
  async findByLabel<T extends { id: number }>(
    entity: EntityTarget<T>,
    label: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<T | null> {
    return manager.createQueryBuilder(entity, 't').where('lower(t.label) = lower(:label)', { label }).getOne();
  }

  /**
   * The id of the active country with this ISO 3166-1 alpha-2 code or name (case- and
   * accent-insensitive; an exact-case name first).
   */
  async activeCountryId(given: string, manager: EntityManager = this.dataSource.manager): Promise<number | undefined> {
    const rows = await manager.query<{ id: number }[]>(
      `SELECT id FROM country
       WHERE active AND (upper(iso3166code) = upper($1)
                         OR lower(immutable_unaccent(label)) = lower(immutable_unaccent($1)))
       ORDER BY (lower(label) = lower($1)) DESC, id LIMIT 1`,
      [given],
    );
    return rows[0]?.id;
  }

  /** Lower-cased labels of the material types with `for_registration` false. */
  async retiredMaterialTypeLabels(manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows = await manager.query<{ label: string }[]>(
      'SELECT lower(label) AS label FROM material_type WHERE NOT for_registration',
    );
    return rows.map((row) => row.label);
  }

  /** The active countries' ISO codes among `codes` (upper case), as stored: one statement for a whole list. */
  async activeCountryCodes(codes: string[], manager: EntityManager = this.dataSource.manager): Promise<Set<string>> {
    const rows = await manager.query<{ code: string }[]>(
      `SELECT upper(iso3166code) AS code FROM country WHERE active AND upper(iso3166code) = ANY($1::text[])`,
      [codes],
    );
    return new Set(rows.map((row) => row.code));
  }

  /**
   * Object types whose label (case-insensitive) is one of `labels` or whose hierarchical label is
   * one of `paths`, keyed `label:<lower label>` and `path:<lower path>`; one statement for a whole list.
   */
  async objectTypesByLabelsOrPaths(
    labels: string[],
    paths: string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, ObjectType>> {
    const found = new Map<string, ObjectType>();
    if (!labels.length && !paths.length) return found;
    const rows = await manager
      .createQueryBuilder(ObjectType, 't')
      .where('lower(t.label) = ANY(:labels) OR lower(t.hierarchical_label) = ANY(:paths)', {
        labels: labels.map((label) => label.toLowerCase()),
        paths: paths.map((path) => path.toLowerCase()),
      })
      .orderBy('t.id')
      .getMany();
    for (const row of rows) {
      const byLabel = `label:${row.label.toLowerCase()}`;
      const byPath = `path:${row.hierarchicalLabel.toLowerCase()}`;
      if (!found.has(byLabel)) found.set(byLabel, row);
      if (!found.has(byPath)) found.set(byPath, row);
    }
    return found;
  }

  async countryOrFail(id: number, manager: EntityManager = this.dataSource.manager): Promise<Country> {
    return manager.findOneByOrFail(Country, { id });
  }

  /** The object type whose hierarchical label is `path` (normalised), case-insensitively. */
  async objectTypeByPath(path: string, manager: EntityManager = this.dataSource.manager): Promise<ObjectType | null> {
    return manager
      .createQueryBuilder(ObjectType, 't')
      .where('lower(t.hierarchical_label) = lower(:path)', { path })
      .getOne();
  }

  async objectTypeById(id: number, manager: EntityManager = this.dataSource.manager): Promise<ObjectType | null> {
    return manager.findOneBy(ObjectType, { id });
  }
}
