import { Injectable } from '@nestjs/common';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { isRowId } from '../../../core/http/row-id';
import { ApiError } from '../../../core/http/api-error';
import { FieldErrors } from '../../../core/http/error-body';
import { AccountsService } from '../../accounts/accounts.service';
import { DATE_PRECISIONS, LENGTH_UNITS } from '../../samples';
import { ObjectTypeDto, toObjectTypeDto } from '../../vocabularies/dto/vocabulary.dto';
import { ObjectTypeResolver } from '../../vocabularies/object-type.resolver';
import { VocabulariesService } from '../../vocabularies/vocabularies.service';
import { templateColumns } from '../batch-fields';
import { BatchTemplate } from '../batch-template.entity';
import { BatchTemplateAccess, TemplateCaller } from './batch-template-access';
import { BatchTemplateRepository, TemplateRow } from './batch-template.repository';
import {
  CollectorTag,
  collectorTags,
  normaliseCollectors,
  normalisePresets,
  normaliseSelectedFields,
} from './batch-template-input';
import { CreateBatchTemplateDto, UpdateBatchTemplateDto } from './dto/batch-template-write.dto';
import { BatchTemplateListItemDto, BatchTemplateReadDto } from './dto/batch-template.dto';
import { TemplateLookup, TemplateLookupLists, TemplateWorkbookWriter, columnLookup } from './template-workbook.writer';

const NOT_FOUND = 'Batch template not found.';

/** Columns a write sets; collectors are always stored as tags. */
type TemplateColumnValues = Omit<Partial<BatchTemplate>, 'collectors'> & { collectors?: CollectorTag[] };

export interface TemplateSpreadsheet {
  filename: string;
  content: Buffer;
}

/**
 * Batch templates: which columns a batch workbook has and which presets its dropdowns offer.
 * Owned by their creator and, when their registry code belongs to a team, by that team.
 */
@Injectable()
export class BatchTemplatesService {
  private readonly writer = new TemplateWorkbookWriter();

  constructor(
    private readonly batchTemplateRepository: BatchTemplateRepository,
    private readonly accountsService: AccountsService,
    private readonly vocabulariesService: VocabulariesService,
    private readonly objectTypes: ObjectTypeResolver,
  ) {}

  /** The caller's templates and their teams' (staff and admins: all), newest first. */
  async list(user: AuthenticatedUser, filter: { isArchived?: boolean } = {}): Promise<BatchTemplateListItemDto[]> {
    const owners = BatchTemplateAccess.listFilter(await this.caller(user));
    const rows = await this.batchTemplateRepository.list({
      owners: owners ?? undefined,
      isArchived: filter.isArchived,
    });
    return rows.map(toListItem);
  }

  async create(dto: CreateBatchTemplateDto, user: AuthenticatedUser): Promise<BatchTemplateReadDto> {
    const values = await this.resolveWrite(dto, null, user);
    const saved = await this.batchTemplateRepository.insert({
      ...values,
      label: dto.label,
      isArchived: dto.is_archived ?? false,
      userOwnerId: user.userId,
      createdBy: user.userId,
    });
    return this.read(saved.id, user);
  }

  async read(id: number, user: AuthenticatedUser): Promise<BatchTemplateReadDto> {
    const row = await this.requireVisible(id, await this.caller(user));
    return toReadDto(row, await this.objectTypeDto(row.object_type_id));
  }

  /** Owner, team editor or manager, staff: anyone else who can see it gets 403, the rest 404. */
  async update(id: number, dto: UpdateBatchTemplateDto, user: AuthenticatedUser): Promise<BatchTemplateReadDto> {
    const caller = await this.caller(user);
    const row = await this.requireVisible(id, caller);
    if (!BatchTemplateAccess.canEdit({ userOwnerId: row.user_owner_id, teamOwnerId: row.team_owner_id }, caller)) {
      throw ApiError.forbidden('You may not edit this batch template.');
    }
    const values = await this.resolveWrite(dto, row, user);
    if (dto.label !== undefined) values.label = dto.label;
    if (dto.is_archived !== undefined) values.isArchived = dto.is_archived;
    await this.batchTemplateRepository.update(id, values);
    return this.read(id, user);
  }

  /** The workbook to fill in, with the template's columns, settings and dropdowns. */
  async spreadsheet(id: number, user: AuthenticatedUser): Promise<TemplateSpreadsheet> {
    const row = await this.requireVisible(id, await this.caller(user));
    const columns = templateColumns(row.selected_fields);
    const needed = new Set(columns.map(columnLookup).filter((lookup) => lookup !== undefined));
    const lookups: TemplateLookupLists = {};
    await Promise.all(
      [...needed].map(async (lookup) => {
        lookups[lookup] = await this.lookupValues(lookup, row);
      }),
    );
    const content = await this.writer.write(
      columns,
      {
        templateId: row.id,
        templateVersion: row.version,
        label: row.label,
        registryCode: row.registry_code,
        objectType: row.object_type,
      },
      lookups,
    );
    return { filename: spreadsheetFilename(row), content };
  }

  private async lookupValues(lookup: TemplateLookup, row: TemplateRow): Promise<string[]> {
    switch (lookup) {
      case 'object_type':
        return (await this.vocabulariesService.objectTypes()).map((objectType) => objectType.label);
      case 'country':
        return (await this.vocabulariesService.countries()).map((country) => country.label);
      case 'material_type':
      case 'location_method':
      case 'sampling_method':
      case 'platform_type':
      case 'launch_type':
        return (await this.vocabulariesService.terms(lookup)).map((term) => term.label);
      case 'length_unit':
        return [...LENGTH_UNITS];
      case 'date_precision':
        return [...DATE_PRECISIONS];
      case 'platform':
        return row.platforms;
      case 'launch_platform':
        return row.launch_platforms;
      case 'current_archive':
        return row.current_archives;
      case 'original_archive':
        return row.original_archives;
      case 'collector':
        return collectorTags(row.collectors).map((tag) => tag.label);
      case 'cruise_field_prgrm':
        return row.cruise_field_prgrms;
    }
  }

  /** Whether the template exists and the user may see it (an upload naming it must not tell which). */
  async isVisible(id: number, user: AuthenticatedUser): Promise<boolean> {
    const row = await this.findRow(id);
    return (
      !!row &&
      BatchTemplateAccess.canView(
        { userOwnerId: row.user_owner_id, teamOwnerId: row.team_owner_id },
        await this.caller(user),
      )
    );
  }

  private async caller(user: AuthenticatedUser): Promise<TemplateCaller> {
    return { user, teams: await this.accountsService.teamMemberships(user.userId) };
  }

  private async findRow(id: number): Promise<TemplateRow | undefined> {
    return this.batchTemplateRepository.findRow(id);
  }

  private async requireVisible(id: number, caller: TemplateCaller): Promise<TemplateRow> {
    const row = await this.findRow(id);
    if (
      !row ||
      !BatchTemplateAccess.canView({ userOwnerId: row.user_owner_id, teamOwnerId: row.team_owner_id }, caller)
    ) {
      throw ApiError.notFound(NOT_FOUND);
    }
    return row;
  }

  /**
   * The columns a write sets, besides label and is_archived (absent fields are left alone). Field
   * errors the body alone reveals come first, all at once; then the object type; then whether the
   * caller may use the registry code (403).
   */
  private async resolveWrite(
    dto: UpdateBatchTemplateDto,
    existing: TemplateRow | null,
    user: AuthenticatedUser,
  ): Promise<TemplateColumnValues> {
    const values: TemplateColumnValues = {};
    const errors: FieldErrors = {};
    if (dto.selected_fields !== undefined) values.selectedFields = normaliseSelectedFields(dto.selected_fields, errors);
    if (dto.collectors !== undefined) values.collectors = normaliseCollectors(dto.collectors, errors);
    const fields = Object.keys(errors);
    if (fields.length) throw ApiError.badRequest(`Validation failed: ${fields.join(', ')}.`, errors);

    if (dto.cruise_field_prgrms !== undefined) values.cruiseFieldPrgrms = normalisePresets(dto.cruise_field_prgrms);
    if (dto.platforms !== undefined) values.platforms = normalisePresets(dto.platforms);
    if (dto.launch_platforms !== undefined) values.launchPlatforms = normalisePresets(dto.launch_platforms);
    if (dto.current_archives !== undefined) values.currentArchives = normalisePresets(dto.current_archives);
    if (dto.original_archives !== undefined) values.originalArchives = normalisePresets(dto.original_archives);
    if (dto.object_type !== undefined) values.objectTypeId = await this.resolveObjectTypeId(dto.object_type);

    if (dto.registry_code === null) {
      values.registryCode = null;
      values.teamOwnerId = null;
    } else if (dto.registry_code !== undefined) {
      const code = dto.registry_code.toUpperCase();
      if (code !== existing?.registry_code) {
        const owner = await this.accountsService.registryCodeOwner(code);
        if (!owner) throw ApiError.invalidField('registry_code', `unknown registry code ${code}`);
        if (!(await this.accountsService.canUseRegistryCode(user, code))) {
          throw ApiError.forbidden(`You may not use registry code ${code}.`);
        }
        values.registryCode = owner.code;
        values.teamOwnerId = owner.teamOwnerId;
      }
    }
    return values;
  }

  /** An object type id, label or path, or the ObjectType a read returned: its id, or null. */
  private async resolveObjectTypeId(value: unknown): Promise<number | null> {
    if (value === null) return null;
    let id: unknown = value;
    if (typeof value === 'object' && !Array.isArray(value)) id = (value as { id?: unknown }).id;
    if (typeof id === 'string' && /^\s*\d+\s*$/.test(id)) id = Number(id);
    if (typeof id === 'number') {
      const found = isRowId(id) ? await this.objectTypes.findById(id) : null;
      if (!found) throw ApiError.invalidField('object_type', `unknown object type id ${id}`);
      return (await this.objectTypes.resolve(found.hierarchicalLabel)).id;
    }
    if (typeof id === 'string' && id.trim()) return (await this.objectTypes.resolve(id)).id;
    throw ApiError.invalidField('object_type', 'must be the id of an object type (or its label)');
  }

  private async objectTypeDto(id: number | null): Promise<ObjectTypeDto | null> {
    const objectType = id === null ? null : await this.objectTypes.findById(id);
    if (!objectType) return null;
    const parent = objectType.parentId === null ? null : await this.objectTypes.findById(objectType.parentId);
    return toObjectTypeDto({ ...objectType, parent });
  }
}

function toListItem(row: TemplateRow): BatchTemplateListItemDto {
  return {
    id: row.id,
    label: row.label,
    registry_code: row.registry_code,
    object_type: row.object_type,
    user_owner: row.user_owner,
    team_owner: row.team_owner,
    created_by: row.created_by,
    created_date: row.created_date.toISOString(),
    is_archived: row.is_archived,
  };
}

function toReadDto(row: TemplateRow, objectType: ObjectTypeDto | null): BatchTemplateReadDto {
  return {
    id: row.id,
    label: row.label,
    registry_code: row.registry_code,
    object_type: objectType,
    user_owner: row.user_owner,
    team_owner: row.team_owner,
    created_by: row.created_by_name,
    created_date: row.created_date.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
    is_archived: row.is_archived,
    selected_fields: row.selected_fields,
    initiatives: row.cruise_field_prgrms,
    platforms: row.platforms,
    launch_platforms: row.launch_platforms,
    current_archives: row.current_archives,
    original_archives: row.original_archives,
    collector_tags: collectorTags(row.collectors),
  };
}

/** ASCII only, so the Content-Disposition header needs no encoding: `batch-template-12-v3-cruise-at-42.xlsx`. */
export function spreadsheetFilename(template: { id: number; version: number; label: string }): string {
  const slug = template.label
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 60)
    .replace(/-+$/, '');
  return `batch-template-${template.id}-v${template.version}${slug ? `-${slug}` : ''}.xlsx`;
}
