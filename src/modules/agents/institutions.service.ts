import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsRelations, In } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { MatchOptions, createOrMatch, fieldPath } from '../vocabularies/common/create-or-match';
import { inIdOrder, searchIds } from '../vocabularies/common/label-search';
import { trimToNull } from '../../core/http/trim';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { CollectorInstitutionInputDto } from './dto/collector-input.dto';
import { InstitutionWriteDto } from './dto/institution.dto';
import { Institution } from './institution.entity';

/** What an Institution read needs loaded. */
export const INSTITUTION_RELATIONS: FindOptionsRelations<Institution> = { country: true, parentInstitutions: true };

@Injectable()
export class InstitutionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly vocabularies: VocabulariesService,
  ) {}

  async search(search: string | undefined, limit: number): Promise<Institution[]> {
    const ids = await searchIds(this.dataSource.manager, { table: 'institution', search, limit });
    return this.load(ids);
  }

  /** 404 when there is no such institution. */
  async get(id: number): Promise<Institution> {
    const [institution] = await this.load([id]);
    if (!institution) throw ApiError.notFound(`Institution ${id} not found.`);
    return institution;
  }

  /** An explicit create: a new row even when another institution has the same label (departments repeat). */
  async create(input: InstitutionWriteDto, createdBy: number | null): Promise<Institution> {
    const country = await this.vocabularies.resolveCountry(input.country, 'country');
    const institution = await this.dataSource.getRepository(Institution).save({
      label: input.label.trim(),
      altLabel: input.alt_label ?? null,
      description: input.description ?? null,
      countryId: country?.id ?? null,
      countrySubdivision: input.country_subdivision ?? null,
      city: input.city ?? null,
      ror: input.ror ?? null,
      createdBy,
    });
    return this.get(institution.id);
  }

  /**
   * The institution of a collector: the first institution with this label (trimmed,
   * case-insensitive), or a new one with the given ROR, city and country. Null without a label.
   */
  async match(input: CollectorInstitutionInputDto, options: MatchOptions = {}): Promise<Institution | null> {
    const manager = options.manager ?? this.dataSource.manager;
    const label = trimToNull(input.label);
    if (!label) return null;
    if (label.length > 200)
      throw ApiError.invalidField(fieldPath(options.field, 'label'), 'must be at most 200 characters');
    const country = await this.vocabularies.resolveCountry(input.country, fieldPath(options.field, 'country'), manager);
    const { id } = await createOrMatch(manager, {
      table: 'institution',
      label,
      uniqueBy: 'match_key',
      values: {
        label,
        ror: trimToNull(input.ror),
        city: trimToNull(input.city),
        country_id: country?.id ?? null,
        created_by: options.createdBy ?? null,
      },
    });
    const [institution] = await this.load([id], manager);
    return institution;
  }

  /** Institutions with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Institution[]> {
    if (!ids.length) return [];
    const rows = await (manager ?? this.dataSource.manager).find(Institution, {
      where: { id: In(ids) },
      relations: INSTITUTION_RELATIONS,
    });
    return inIdOrder(rows, ids);
  }
}
