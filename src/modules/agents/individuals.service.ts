import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { MatchOptions, createOrMatch, fieldPath } from '../vocabularies/common/create-or-match';
import { inIdOrder, searchIds } from '../vocabularies/common/label-search';
import { trimToNull } from '../../core/http/trim';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { CollectorIndividualInputDto } from './dto/collector-input.dto';
import { IndividualWriteDto } from './dto/individual.dto';
import { Individual } from './individual.entity';

/** The label of a person: as given, else "fname lname" (cut to the column's 200 characters). */
export function individualLabel(input: {
  label?: string | null;
  fname?: string | null;
  lname?: string | null;
}): string | null {
  const label = trimToNull(input.label);
  if (label) return label;
  const name = [trimToNull(input.fname), trimToNull(input.lname)].filter(Boolean).join(' ');
  return name ? name.slice(0, 200) : null;
}

@Injectable()
export class IndividualsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly vocabularies: VocabulariesService,
  ) {}

  async search(search: string | undefined, limit: number): Promise<Individual[]> {
    const ids = await searchIds(this.dataSource.manager, { table: 'individual', search, limit });
    return this.load(ids);
  }

  /** 404 when there is no such individual. */
  async get(id: number): Promise<Individual> {
    const [individual] = await this.load([id]);
    if (!individual) throw ApiError.notFound(`Individual ${id} not found.`);
    return individual;
  }

  /** An explicit create: a new row even when someone else has the same name. */
  async create(input: IndividualWriteDto, createdBy: number | null): Promise<Individual> {
    const label = individualLabel(input);
    if (!label) throw ApiError.invalidField('label', 'give a label, or fname and lname');
    const country = await this.vocabularies.resolveCountry(input.country, 'country');
    const individual = await this.dataSource.getRepository(Individual).save({
      label,
      fname: input.fname ?? null,
      lname: input.lname ?? null,
      altLabel: input.alt_label ?? null,
      description: input.description ?? null,
      address: input.address ?? null,
      email: input.email ?? null,
      phone: input.phone ?? null,
      fax: input.fax ?? null,
      individualUri: input.individual_uri ?? null,
      institutionDetail: input.institution_detail ?? null,
      countryId: country?.id ?? null,
      createdBy,
    });
    return this.get(individual.id);
  }

  /**
   * The person of a collector: the first individual with this label (or "fname lname"), trimmed and
   * case-insensitive, or a new one. Null when the input names nobody.
   */
  async match(input: CollectorIndividualInputDto, options: MatchOptions = {}): Promise<Individual | null> {
    const manager = options.manager ?? this.dataSource.manager;
    const label = individualLabel(input);
    if (!label) return null;
    if (label.length > 200)
      throw ApiError.invalidField(fieldPath(options.field, 'label'), 'must be at most 200 characters');
    const { id } = await createOrMatch(manager, {
      table: 'individual',
      label,
      uniqueBy: 'match_key',
      values: {
        label,
        fname: trimToNull(input.fname),
        lname: trimToNull(input.lname),
        individual_uri: trimToNull(input.individual_uri),
        created_by: options.createdBy ?? null,
      },
    });
    const [individual] = await this.load([id], manager);
    return individual;
  }

  /** Individuals with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Individual[]> {
    if (!ids.length) return [];
    const rows = await (manager ?? this.dataSource.manager).find(Individual, {
      where: { id: In(ids) },
      relations: { country: true, institutions: { country: true, parentInstitutions: true } },
    });
    return inIdOrder(rows, ids);
  }
}
