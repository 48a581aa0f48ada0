import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { FieldErrors } from '../../core/http/error-body';
import { PageRequest } from '../../core/http/pagination';
import { isRowId } from '../../core/http/row-id';
import { IgsnService } from '../samples';
import { SampleAccessPolicy, SampleCaller } from '../samples';
import { SampleRow, accessFacts } from '../samples';
import { SampleRepository } from '../samples';
import { RelatedResourceObject } from '../samples';
import { RELATED_RESOURCE_ORDERINGS, RelatedResourceOrdering, RelatedResourceRepository } from '../samples';
import { RELATED_RESOURCE_TYPES, URI_TYPES, UriType, inferredUriType, termOf, uriProblem } from '../samples';
import {
  LinkedSamplesDto,
  RelatedResourceObjectDto,
  RelatedResourcePatchDto,
  RelatedResourceWriteDto,
} from './dto/related-resource.dto';

const NOT_FOUND = 'Related resource not found.';

/** The list's query parameters besides the page. */
export interface RelatedResourceListParams {
  search?: string;
  ordering?: string;
}

/**
 * Related resource objects (issue 20 §1). Who may do what: any signed-in user creates; the creator,
 * staff and admins see, edit and link one (to others it does not exist: 404); linking a sample also
 * needs edit permission on that sample (SampleAccessPolicy).
 */
@Injectable()
export class RelatedResourcesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly relatedResourceRepository: RelatedResourceRepository,
    private readonly samplesRepository: SampleRepository,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
  ) {}

  async create(dto: RelatedResourceWriteDto, user: AuthenticatedUser): Promise<RelatedResourceObjectDto> {
    const checked = this.checked(dto);
    const row = await this.relatedResourceRepository.create({
      label: dto.label,
      relatedResourceType: checked.relatedResourceType,
      uri: dto.uri,
      uriType: checked.uriType,
      description: dto.description ?? null,
      createdBy: user.userId,
    });
    return this.toDto(row, user);
  }

  async list(
    params: RelatedResourceListParams,
    page: PageRequest,
    user: AuthenticatedUser,
  ): Promise<{ count: number; data: RelatedResourceObjectDto[] }> {
    const { rows, count } = await this.relatedResourceRepository.list({
      createdBy: seesAll(user) ? undefined : user.userId,
      search: params.search?.trim() || undefined,
      ordering: parseOrdering(params.ordering),
      limit: page.pageSize,
      offset: page.offset,
    });
    return { count, data: rows.map((row) => this.toDto(row, user)) };
  }

  async fetch(id: number, user: AuthenticatedUser): Promise<RelatedResourceObjectDto> {
    const row = await this.relatedResourceRepository.findById(id);
    if (!row || !mayUse(row, user)) throw ApiError.notFound(NOT_FOUND);
    return this.toDto(row, user);
  }

  /** PATCH: the fields sent replace the stored ones; the linked samples' DataCite records follow. */
  async update(id: number, dto: RelatedResourcePatchDto, user: AuthenticatedUser): Promise<RelatedResourceObjectDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      const current = await this.relatedResourceRepository.lockById(manager, id);
      if (!current || !mayUse(current, user)) throw ApiError.notFound(NOT_FOUND);
      if (dto.label === null || dto.uri === null || dto.related_resource_type === null) {
        const field = dto.label === null ? 'label' : dto.uri === null ? 'uri' : 'related_resource_type';
        throw ApiError.invalidField(field, 'cannot be cleared');
      }
      const uri = dto.uri ?? current.uri;
      // A new address without a type gets the type it implies; a type alone is checked against the address.
      const checked = this.checked({
        related_resource_type: dto.related_resource_type ?? current.relatedResourceType,
        uri,
        uri_type: dto.uri_type ?? (dto.uri !== undefined ? undefined : current.uriType),
      });
      const now = this.clock.now();
      const values: Partial<RelatedResourceObject> = {
        relatedResourceType: checked.relatedResourceType,
        uri,
        uriType: checked.uriType,
        updatedAt: now,
      };
      if (dto.label !== undefined) values.label = dto.label;
      if (dto.description !== undefined) values.description = dto.description;
      await this.relatedResourceRepository.update(manager, id, values);
      await this.relatedResourceRepository.markLinkedSamplesUpdated(manager, id, now);
      return { ...current, ...values };
    });
    return this.toDto(row, user);
  }

  /**
   * Links the resource to every sample named (all or nothing): 404 when the resource or a sample
   * is not visible to the caller, 403 when a sample is visible but not editable by them.
   */
  async linkSamples(id: number, sampleRefs: unknown[], user: AuthenticatedUser): Promise<LinkedSamplesDto> {
    const resource = await this.relatedResourceRepository.findById(id);
    if (!resource || !mayUse(resource, user)) throw ApiError.notFound(NOT_FOUND);
    const caller = (await this.policy.caller(user)) as SampleCaller;
    const rows = await this.namedSamples(sampleRefs);
    const now = this.clock.now();
    const unseen: FieldErrors = {};
    const uneditable: FieldErrors = {};
    rows.forEach((row, index) => {
      if (!row || !this.policy.canView(accessFacts(row), caller, now))
        unseen[`sample_ids.${index}`] = ['no such sample'];
      else if (!this.policy.canEdit(accessFacts(row), caller))
        uneditable[`sample_ids.${index}`] = ['you may not edit this sample'];
    });
    if (Object.keys(unseen).length) throw new ApiError(404, 'Sample not found.', unseen);
    if (Object.keys(uneditable).length) throw new ApiError(403, 'You may not edit every sample named.', uneditable);
    const sampleIds = [...new Set(rows.map((row) => Number((row as SampleRow).id)))];
    await this.dataSource.transaction(async (manager) => {
      await this.relatedResourceRepository.link(manager, sampleIds, [id]);
      await this.relatedResourceRepository.markSamplesUpdated(manager, sampleIds, now);
    });
    return { id, sample_ids: sampleIds, sample_count: await this.relatedResourceRepository.sampleCount(id) };
  }

  /** The sample each reference names — an id (number or digits) or an IGSN — or undefined; 400 for other values. */
  private async namedSamples(refs: unknown[]): Promise<(SampleRow | undefined)[]> {
    const errors: FieldErrors = {};
    const keys = refs.map((ref, index) => {
      // A whole number beyond the id column (1e300) names no sample: answered as unknown, never sent to PostgreSQL.
      if (typeof ref === 'number' && Number.isInteger(ref) && ref > 0) return isRowId(ref) ? { id: ref } : {};
      if (typeof ref === 'string' && /^\d{1,18}$/.test(ref.trim())) {
        const id = Number(ref.trim());
        return isRowId(id) ? { id } : {};
      }
      if (typeof ref === 'string' && ref.trim() && ref.length <= 255)
        return { igsn: this.igsnService.parse(ref.trim()) };
      errors[`sample_ids.${index}`] = ['must be a sample id or an IGSN'];
      return {};
    });
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    const ids = keys.flatMap((key) => (key.id !== undefined ? [key.id] : []));
    const byId = new Map((await this.samplesRepository.byIds(ids)).map((row) => [Number(row.id), row]));
    return Promise.all(
      keys.map(async (key) => {
        if (key.id !== undefined) return byId.get(key.id);
        return key.igsn === undefined ? undefined : this.samplesRepository.byIgsn(key.igsn);
      }),
    );
  }

  /** The type and uri type of a write, checked against the lists and the address: 400 naming the field. */
  private checked(dto: { related_resource_type?: string; uri: string; uri_type?: string }): {
    relatedResourceType: string;
    uriType: UriType;
  } {
    const errors: FieldErrors = {};
    const relatedResourceType = termOf(RELATED_RESOURCE_TYPES, dto.related_resource_type ?? '');
    if (!relatedResourceType) {
      errors.related_resource_type = [`must be one of: ${RELATED_RESOURCE_TYPES.join(', ')}`];
    }
    const uriType = dto.uri_type === undefined ? inferredUriType(dto.uri) : termOf(URI_TYPES, dto.uri_type);
    if (!uriType) errors.uri_type = [`must be one of: ${URI_TYPES.join(', ')}`];
    const problem = uriType ? uriProblem(dto.uri, uriType) : undefined;
    if (problem) errors.uri = [problem];
    if (Object.keys(errors).length) {
      throw ApiError.badRequest(`Validation failed: ${Object.keys(errors).join(', ')}.`, errors);
    }
    return { relatedResourceType: relatedResourceType as string, uriType: uriType as UriType };
  }

  private toDto(row: RelatedResourceObject, user: AuthenticatedUser): RelatedResourceObjectDto {
    return {
      id: row.id,
      label: row.label,
      related_resource_type: row.relatedResourceType,
      uri: row.uri,
      uri_type: row.uriType,
      description: row.description,
      created_by: row.createdBy,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      can_edit: mayUse(row, user),
    };
  }
}

function seesAll(user: AuthenticatedUser): boolean {
  return user.isStaff || user.isAdmin;
}

/** The creator, staff and admins see, edit and link a related resource. */
function mayUse(row: RelatedResourceObject, user: AuthenticatedUser): boolean {
  return seesAll(user) || (row.createdBy !== null && row.createdBy === user.userId);
}

/** `?ordering=`: a field of RELATED_RESOURCE_ORDERINGS, `-` first for descending; default newest first. */
export function parseOrdering(value: string | undefined): { column: RelatedResourceOrdering; descending: boolean } {
  const text = value?.trim();
  if (!text) return { column: 'created_at', descending: true };
  const descending = text.startsWith('-');
  const column = descending ? text.slice(1) : text;
  if (!(column in RELATED_RESOURCE_ORDERINGS)) {
    throw ApiError.invalidField(
      'ordering',
      `must be one of ${Object.keys(RELATED_RESOURCE_ORDERINGS).join(', ')}, each optionally preceded by -`,
    );
  }
  return { column: column as RelatedResourceOrdering, descending };
}
