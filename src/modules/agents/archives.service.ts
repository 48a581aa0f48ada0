import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SqlLookup } from '../../core/database/sql-lookup';
import { ApiError } from '../../core/http/api-error';
import { textLength } from '../../core/http/text-length';
import { MatchOptions, fieldPath } from '../vocabularies/common/create-or-match';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { trimToNull } from '../../core/http/trim';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { Archive } from './archive.entity';
import { ArchiveRepository } from './archive.repository';
import { ArchiveInputDto, ArchivePatchDto, ArchiveWriteDto } from './dto/archive.dto';
import { InstitutionRepository } from './institution.repository';
import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { definedOnly } from '../vocabularies/common/defined-only';
import { refuseTakenLabel } from '../vocabularies/common/label-taken';
import { SentAttribute, storedEqualsSent, storesAllSent } from '../vocabularies/common/stored-equals-sent';
import { assertMayChangeSharedAgent } from '../vocabularies/common/agent-edit.policy';
import { AgentUsageRepository } from '../vocabularies/common/agent-usage.repository';

/** The text fields an inline archive may send beside its label: the column, the entity's property, how it compares. */
const TEXT_FIELDS = [
  { column: 'alt_label', property: 'altLabel', caseInsensitive: false },
  { column: 'description', property: 'description', caseInsensitive: false },
  { column: 'city', property: 'city', caseInsensitive: true },
  { column: 'url', property: 'url', caseInsensitive: false },
  { column: 'uri', property: 'uri', caseInsensitive: false },
] as const;

type TextField = (typeof TEXT_FIELDS)[number];
type TextColumn = TextField['column'];

/** An archive row as a statement answers it (to_jsonb: its columns by name). */
type StoredArchive = { id: number } & Record<TextColumn, string | null>;

/** The text fields an inline archive sends, trimmed, by column. */
function sentText(input: ArchiveInputDto): Record<TextColumn, string | null> {
  return {
    alt_label: trimToNull(input.alt_label),
    description: trimToNull(input.description),
    city: trimToNull(input.city),
    url: trimToNull(input.url),
    uri: trimToNull(input.uri),
  };
}

/** The sent text fields as attributes a stored row must equal (storedEqualsSent); `stored` reads one from a row. */
function textAttributes<Row>(
  sent: Record<TextColumn, string | null>,
  field: string | undefined,
  stored: (row: Row, text: TextField) => string | null,
): SentAttribute<Row>[] {
  return TEXT_FIELDS.map((text) => ({
    field: fieldPath(field, text.column),
    column: text.column,
    sent: sent[text.column],
    stored: (row: Row) => stored(row, text),
    caseInsensitive: text.caseInsensitive,
  }));
}

/** Archive labels are unique (trimmed, case-insensitive): every write that names one files it under that label. */
@Injectable()
export class ArchivesService {
  constructor(
    private readonly agentUsageRepository: AgentUsageRepository,
    private readonly archiveRepository: ArchiveRepository,
    private readonly institutionRepository: InstitutionRepository,
    private readonly labelledRowRepository: LabelledRowRepository,
    private readonly vocabulariesService: VocabulariesService,
  ) {}

  async search(search: string | undefined, limit: number): Promise<Archive[]> {
    return this.archiveRepository.search(search, limit);
  }

  /** POST /api/archives/: 409 when an archive with this label exists (even one created concurrently). */
  async create(input: ArchiveWriteDto, createdBy: number | null): Promise<Archive> {
    const country = await this.vocabulariesService.resolveCountry(input.country, 'country');
    const parent = input.parent_institution ?? null;
    if (parent !== null && !(await this.institutionRepository.exists(parent))) {
      throw ApiError.invalidField('parent_institution', `no institution has id ${parent}`);
    }
    const label = input.label.trim();
    const { id, created } = await this.labelledRowRepository.createOrMatch({
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

  /** 404 when there is no such archive. */
  async get(id: number): Promise<Archive> {
    const [archive] = await this.load([id]);
    if (!archive) throw ApiError.notFound(`Archive ${id} not found.`);
    return archive;
  }

  /**
   * PATCH /api/archives/{id}/: the fields sent replace the stored ones. Only callers who may edit
   * the row; 409 when the new label is another archive's.
   */
  async update(id: number, patch: ArchivePatchDto, user: AuthenticatedUser): Promise<Archive> {
    const current = await this.get(id);
    await assertMayChangeSharedAgent(current, user, 'archive', () =>
      this.agentUsageRepository.usedByOthers('archive', id, user),
    );
    if (patch.label === null) throw ApiError.invalidField('label', 'must not be empty');
    const countryId = await this.vocabulariesService.countryIdPatch(patch.country);
    const parent = patch.parent_institution;
    if (parent !== undefined && parent !== null && !(await this.institutionRepository.exists(parent))) {
      throw ApiError.invalidField('parent_institution', `no institution has id ${parent}`);
    }
    const label = patch.label?.trim();
    if (label !== undefined)
      await refuseTakenLabel(this.labelledRowRepository, undefined, { table: 'archive', noun: 'archive', label, id });
    // A concurrent rename to the same label trips the unique index: the generic 409.
    await this.archiveRepository.update(id, {
      ...definedOnly({
        label,
        altLabel: patch.alt_label,
        description: patch.description,
        countrySubdivision: patch.country_subdivision,
        city: patch.city,
        url: patch.url,
        uri: patch.uri,
        parentInstitutionId: parent,
        countryId,
      }),
    });
    return this.get(id);
  }

  /**
   * The archive a sample write names inline (ArchiveInput): the one with this label, or a new one
   * with the given fields. The other fields sent must equal what the archive stores (blanks are
   * filled in), else 409 naming the field and the stored value. Safe under concurrency (one row per
   * label) and inside the caller's transaction (`options.manager`).
   */
  async match(input: ArchiveInputDto, options: MatchOptions = {}): Promise<Archive> {
    const manager = options.manager;
    const label = trimToNull(input.label);
    if (!label) throw ApiError.invalidField(fieldPath(options.field, 'label'), 'must not be empty');
    if (textLength(label) > 200)
      throw ApiError.invalidField(fieldPath(options.field, 'label'), 'must be at most 200 characters');
    const country = await this.vocabulariesService.resolveCountry(
      input.country,
      fieldPath(options.field, 'country'),
      manager,
    );
    const values = { ...sentText(input), country_id: country?.id ?? null };
    const { id, created } = await this.labelledRowRepository.createOrMatch(
      {
        table: 'archive',
        label,
        uniqueBy: 'label',
        values: { label, ...values, created_by: options.createdBy ?? null },
      },
      manager,
    );
    const load = async () => (await this.load([id], manager))[0];
    if (created) return load();
    return storedEqualsSent(this.labelledRowRepository, manager, {
      table: 'archive',
      id,
      describe: (row: Archive) => `archive ${row.id} "${row.label}"`,
      load,
      editPath: `/api/archives/${id}/`,
      attributes: [
        ...textAttributes(values, options.field, (row: Archive, { property }) => row[property]),
        {
          field: fieldPath(options.field, 'country'),
          column: 'country_id',
          sent: values.country_id,
          sentShown: country?.label,
          stored: (row) => row.countryId,
          shown: (row) => row.country?.label ?? null,
        },
      ],
    });
  }

  /**
   * The archive match() would settle on without writing anything, as a lookup a statement asks beside
   * others: the id of the archive with this label when it stores every field sent. Undefined (as a
   * lookup, or as its answer) when match() must run: a new label, a blank to fill in, a difference to
   * refuse, a country to resolve, or a label match() refuses.
   */
  knownLookup(input: ArchiveInputDto): SqlLookup<number> | undefined {
    const label = trimToNull(input.label);
    if (!label || textLength(label) > 200 || trimToNull(input.country)) return undefined;
    const attributes = textAttributes(sentText(input), undefined, (row: StoredArchive, { column }) => row[column]);
    return {
      expression: this.archiveRepository.byLabelSql(label),
      read: (answer) => {
        const row = answer as StoredArchive | null;
        return row && storesAllSent(row, attributes) ? row.id : undefined;
      },
    };
  }

  /** Archives with what a read needs, in the order of `ids`. */
  async load(ids: number[], manager?: EntityManager): Promise<Archive[]> {
    return this.archiveRepository.load(ids, manager);
  }
}
