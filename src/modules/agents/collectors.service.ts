import { isRowId } from '../../core/http/row-id';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Sql, join, sql } from '../../core/database/sql';
import { SqlLookup } from '../../core/database/sql-lookup';
import { ApiError } from '../../core/http/api-error';
import { MatchOptions } from '../vocabularies/common/create-or-match';
import { trimToNull } from '../../core/http/trim';
import { Collector } from './collector.entity';
import { CollectorRepository } from './collector.repository';
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
    private readonly collectorRepository: CollectorRepository,
    private readonly individualsService: IndividualsService,
    private readonly institutionsService: InstitutionsService,
  ) {}

  /**
   * One collector row per reference, in order, with `individual` and `institution` loaded. Errors
   * name `{field}.{index}…`; `options.field` defaults to `collectors`.
   */
  async resolve(references: (number | CollectorInputDto)[], options: MatchOptions = {}): Promise<Collector[]> {
    const manager = options.manager;
    const list = options.field ?? 'collectors';
    const ids: number[] = [];
    for (const [index, reference] of references.entries()) {
      const field = `${list}.${index}`;
      const input = typeof reference === 'number' ? { id: reference } : reference;
      if (input.id !== undefined && input.id !== null) {
        // Batch and legacy XML rows come here without the DTO's bounds: an id past int4 is unknown, not a 500.
        if (!isRowId(input.id) || !(await this.collectorRepository.exists(input.id, manager))) {
          throw ApiError.invalidField(`${field}.id`, `no collector has id ${input.id}`);
        }
        ids.push(input.id);
        continue;
      }
      const shared = { manager, createdBy: options.createdBy };
      const individual = input.individual
        ? await this.individualsService.match(input.individual, { ...shared, field: `${field}.individual` })
        : null;
      const institution = input.institution
        ? await this.institutionsService.match(input.institution, { ...shared, field: `${field}.institution` })
        : null;
      const description = trimToNull(input.description);
      if (!individual && !institution && !description) {
        throw ApiError.invalidField(field, 'name an individual or an institution, or give a description');
      }
      ids.push(
        await this.collectorRepository.createOrMatch(
          individual?.id ?? null,
          institution?.id ?? null,
          description,
          manager,
        ),
      );
    }
    return this.load(ids, manager);
  }

  /**
   * The collector ids resolve() would settle on without writing anything, as a lookup a statement asks
   * beside others: each reference an existing collector's id, or a person (by identifier or name,
   * without an organisation) whose collector row exists and who stores every name sent. Undefined (as
   * a lookup, or as its answer) when resolve() must run.
   */
  knownLookup(references: (number | CollectorInputDto)[]): SqlLookup<number[]> | undefined {
    const items: SqlLookup<number>[] = [];
    for (const reference of references) {
      const item = this.knownItem(typeof reference === 'number' ? { id: reference } : reference);
      if (!item) return undefined;
      items.push(item);
    }
    const expressions: Sql[] = items.map((item) => sql`(${item.expression})`);
    return {
      expression: items.length ? sql`jsonb_build_array(${join(expressions, ', ')})` : sql`'[]'::jsonb`,
      read: (answer) => {
        const ids = items.map((item, index) => item.read((answer as unknown[])[index]));
        return ids.every((id) => id !== undefined) ? ids : undefined;
      },
    };
  }

  private knownItem(input: CollectorInputDto): SqlLookup<number> | undefined {
    if (input.id !== undefined && input.id !== null) {
      const id = input.id;
      if (!isRowId(id)) return undefined;
      return { expression: this.collectorRepository.existsSql(id), read: (answer) => (answer ? id : undefined) };
    }
    if (!input.individual || input.institution) return undefined;
    const description = trimToNull(input.description);
    const person = this.individualsService.knownLookup(input.individual, {
      sql: (individualId) => this.collectorRepository.individualCollectorIdSql(individualId, description),
      read: (answer) => (typeof answer === 'number' ? answer : undefined),
    });
    return person && { expression: person.expression, read: (answer) => person.read(answer)?.also };
  }

  /** Collector rows by id (e.g. to show a sample's collectors), in the order given. */
  async load(ids: number[], manager?: EntityManager): Promise<Collector[]> {
    return this.collectorRepository.load(ids, manager);
  }
}
