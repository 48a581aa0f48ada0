import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { MatchOptions, createOrMatch, fieldPath } from '../vocabularies/common/create-or-match';
import { inIdOrder, searchIds } from '../vocabularies/common/label-search';
import { trimToNull } from '../../core/http/trim';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { Archive } from './archive.entity';
import { ArchiveInputDto, ArchiveWriteDto } from './dto/archive.dto';
import { Institution } from './institution.entity';

/** Archive labels are unique (trimmed, case-insensitive): every write that names one files it under that label. */
@Injectable()
export class ArchivesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly vocabularies: VocabulariesService,
  ) {}

  async search(search: string | undefined, limit: number): Promise<Archive[]> {
    const ids = await searchIds(this.dataSource.manager, { table: 'archive', search, limit });
    return this.load(ids);
  }

  /** POST /api/archives/: 409 when an archive with this label exists (even one created concurrently). */
  async create(input: ArchiveWriteDto, createdBy: number | null): Promise<Archive> {
    const country = await this.vocabularies.resolveCountry(input.country, 'country');
    const parent = input.parent_institution ?? null;
    if (parent !== null && !(await this.dataSource.manager.existsBy(Institution, { id: parent }))) {
      throw ApiError.invalidField('parent_institution', `no institution has id ${parent}`);
    }
    const label = input.label.trim();
    const { id, created } = await createOrMatch(this.dataSource.manager, {
      table: 'archive',
      label,
      uniqueBy: 'label',
      values: {
        label,
        alt_label: input.alt_label ?? null,
        description: input.description ?? null,
        country_id: country?.id ?? null,
        country_subdivision: input.country_subdivision ?? null,
        city: input.city ?? null,
        url: input.url ?? null,
        uri: input.uri ?? null,
        parent_institution_id: parent,
        created_by: createdBy,
      },
    });
    if (!created) {
      throw ApiError.conflict(`An archive labelled "${label}" already exists (id ${id}).`, {
        label: ['an archive with this label already exists'],
      });
    }
    const [archive] = await this.load([id]);
    return archive;
  }

  /**
   * The archive a sample write names inline (ArchiveInput): the one with this label, or a new one
   * with the given fields. Safe under concurrency (one row per label) and inside the caller's
   * transaction (`options.manager`).
   */
  async match(input: ArchiveInputDto, options: MatchOptions = {}): Promise<Archive> {
    const manager = options.manager ?? this.dataSource.manager;
    const label = trimToNull(input.label);
    if (!label) throw ApiError.invalidField(fieldPath(options.field, 'label'), 'must not be empty');
    if (label.length > 200)
      throw ApiError.invalidField(fieldPath(options.field, 'label'), 'must be at most 200 characters');
    const country = await this.vocabularies.resolveCountry(input.country, fieldPath(options.field, 'country'), manager);
    const { id } = await createOrMatch(manager, {
      table: 'archive',
      label,
      uniqueBy: 'label',
      values: {
        label,
        alt_label: trimToNull(input.alt_label),
        description: trimToNull(input.description),
        country_id: country?.id ?? null,
        city: trimToNull(input.city),
        url: trimToNull(input.url),
        uri: trimToNull(input.uri),
        created_by: options.createdBy ?? null,
      },
    });
    const [archive] = await this.load([id], manager);
    return archive;
  }

  /** Archives with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Archive[]> {
    if (!ids.length) return [];
    const rows = await (manager ?? this.dataSource.manager).find(Archive, {
      where: { id: In(ids) },
      relations: { country: true, parentInstitution: { country: true, parentInstitutions: true } },
    });
    return inIdOrder(rows, ids);
  }
}
