import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { textLength } from '../../core/http/text-length';
import { PageRequest } from '../../core/http/pagination';
import { ObjectTypeResolver } from '../vocabularies/object-type.resolver';
import { AccountsService } from '../accounts/accounts.service';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { SearchScope, SEARCH_SCOPES } from './dto/sample-write.dto';
import { SampleDto } from './dto/sample.dto';
import { DEFAULT_SAMPLE_ORDER, SampleOrder } from './sample-ordering';
import { IgsnService } from './igsn.service';
import { SampleAccessPolicy, SampleCaller, SqlCondition } from './sample-access.policy';
import { SampleMapper, SampleRow, accessFacts } from './sample.mapper';
import { STORE_STATUSES, StoreStatus } from './sample.entity';
import { SampleCount, SampleFilters, SampleRepository, SampleSearchScope } from './sample.repository';
import {
  SAMPLE_FILTER_DOCS,
  SEARCH_VALUE_FILTERS,
  SampleFilterName,
  SampleSearchQuery,
  orcidOf,
  parseBoundingBox,
  parseDateRange,
  parseListParameter,
} from './sample-search';

/** Filters whose selectivity depends on their value (see search()). */
const VALUE_DEPENDENT_FILTERS = [...SEARCH_VALUE_FILTERS, 'registry_code'] as const;

/**
 * Search samples: the query checked into a condition (also for exports and label sheets) and the
 * page with its count. Writes are SampleWriter's, single reads SampleReader's, deactivation
 * SampleDeactivation's; every visibility decision goes through SampleAccessPolicy.
 */
@Injectable()
export class SamplesService {
  constructor(
    private readonly samples: SampleRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsn: IgsnService,
    private readonly objectTypes: ObjectTypeResolver,
    private readonly vocabularies: VocabulariesService,
    private readonly clock: Clock,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * The WHERE clause and parameters of a search (also used by exports): the query is checked here
   * (a bad value is a 400), and SampleRepository.searchCondition writes the SQL.
   */
  async searchCondition(
    query: SampleSearchQuery,
    user: AuthenticatedUser | undefined,
  ): Promise<{ where: string; params: unknown[]; caller?: SampleCaller }> {
    const caller = await this.policy.caller(user);
    const scope = (query.scope ?? (caller ? 'personal' : 'public')) as SearchScope;
    if (!(SEARCH_SCOPES as readonly string[]).includes(scope)) {
      throw ApiError.invalidField('scope', `must be one of ${SEARCH_SCOPES.join(', ')}`);
    }
    if (scope !== 'public' && !caller) throw ApiError.unauthorized(`scope=${scope} needs a token.`);
    const searchScope: SampleSearchScope =
      scope === 'public' || !caller
        ? { public: this.policy.publicCondition('s', this.clock.now(), 0) }
        : { scope, userId: caller.user.userId, teamIds: caller.teams.map((team) => team.teamId) };
    const filters: SampleFilters = {};
    if (query.is_draft !== undefined) {
      if (query.is_draft !== 'true' && query.is_draft !== 'false')
        throw ApiError.invalidField('is_draft', 'must be true or false');
      filters.isDraft = query.is_draft === 'true';
    }
    const text = (name: 'q' | 'name' | 'igsn') => {
      const value = query[name];
      if (value === undefined || value.trim() === '') return undefined;
      if (textLength(value) > 255) throw ApiError.invalidField(name, 'must be at most 255 characters');
      return value.trim();
    };
    const withoutDoiPrefix = (value: string) => this.igsn.withoutDoiPrefix(value) ?? value;
    const q = text('q');
    if (q !== undefined) filters.q = { text: q, igsn: withoutDoiPrefix(q) };
    filters.name = text('name');
    const igsnText = text('igsn');
    if (igsnText !== undefined) filters.igsn = withoutDoiPrefix(igsnText);
    // Each list is deduplicated, capped and resolved in one statement (issue 21 §5).
    const objectTypes = parseListParameter(query.object_type, 'object_type');
    if (objectTypes.length) {
      filters.objectTypeIds = (await this.objectTypes.resolveMany(objectTypes, { field: 'object_type' })).map(
        (objectType) => objectType.id,
      );
    }
    const countries = parseListParameter(query.country, 'country', (code) => code.toUpperCase());
    if (countries.length) {
      const malformed = countries.find((code) => !/^[A-Z]{2}$/.test(code));
      if (malformed !== undefined) {
        throw ApiError.invalidField('country', `"${malformed}" is not an ISO 3166-1 alpha-2 code`);
      }
      filters.countryCodes = await this.vocabularies.resolveCountryCodes(countries, 'country');
    }
    Object.assign(filters, await this.searchFilters(query, caller));
    const { sql, params } = this.samples.searchCondition(searchScope, filters);
    return { where: sql, params, caller };
  }

  /** The samples of a batch that the caller may see, as a search condition (label sheets). */
  async batchCondition(
    batchId: number,
    user: AuthenticatedUser | undefined,
  ): Promise<{ where: string; params: unknown[]; caller?: SampleCaller }> {
    const caller = await this.policy.caller(user);
    const visible = this.policy.visibleCondition('s', caller, this.clock.now(), 0);
    const { sql, params } = this.samples.narrowed(visible, { batchId });
    return { where: sql, params, caller };
  }

  /** The filters added for issue 13 (registry code … creation date), parsed and checked: a bad value is a 400. */
  private async searchFilters(query: SampleSearchQuery, caller: SampleCaller | undefined): Promise<SampleFilters> {
    const filters: SampleFilters = {};
    const given = (name: SampleFilterName) => {
      const value = query[name]?.trim();
      const { maxLength } = SAMPLE_FILTER_DOCS[name];
      if (value && textLength(value) > maxLength)
        throw ApiError.invalidField(name, `must be at most ${maxLength} characters`);
      return value || undefined;
    };
    const codes = parseListParameter(given('registry_code'), 'registry_code', (code) => code.toUpperCase());
    if (codes.length) {
      const [unknown] = await this.accounts.unknownRegistryCodes(codes);
      if (unknown !== undefined) throw ApiError.invalidField('registry_code', `"${unknown}" is not a registry code`);
      filters.registryCodes = codes;
    }
    const parent = given('parent');
    if (parent !== undefined) filters.parentId = await this.visibleParentId(parent, caller);
    const collector = given('collector');
    if (collector !== undefined) {
      const orcid = orcidOf(collector);
      filters.collectorIds = await this.samples.collectorIdsMatching(orcid ? { orcid } : { name: collector });
    }
    const status = given('metadata_store_status');
    if (status !== undefined) {
      if (!(STORE_STATUSES as readonly string[]).includes(status)) {
        throw ApiError.invalidField('metadata_store_status', `must be one of ${STORE_STATUSES.join(', ')}`);
      }
      filters.storeStatus = status as StoreStatus;
    }
    filters.externalSampleId = given('external_sample_id');
    const bbox = given('bbox');
    if (bbox !== undefined) filters.bbox = parseBoundingBox(bbox);
    filters.sampling = parseDateRange(given('sampling_date_from'), given('sampling_date_to'), {
      from: 'sampling_date_from',
      to: 'sampling_date_to',
    });
    filters.created = parseDateRange(given('created_from'), given('created_to'), {
      from: 'created_from',
      to: 'created_to',
    });
    return filters;
  }

  /**
   * The id of the sample `parent` names, when the caller may see it. A parent that does not exist
   * and one the caller may not see get the same 400, so the filter reveals nothing about hidden samples.
   */
  private async visibleParentId(parent: string, caller: SampleCaller | undefined): Promise<string> {
    const row = await this.visibleRowByIgsn(parent, caller);
    if (!row) throw ApiError.invalidField('parent', `no sample ${parent} that you may see`);
    return String(row.id);
  }

  /** The sample an IGSN (any form) names when the caller may see it; undefined alike when hidden or missing. */
  private async visibleRowByIgsn(
    value: string,
    caller: SampleCaller | undefined,
    manager?: EntityManager,
  ): Promise<SampleRow | undefined> {
    const suffix = this.igsn.parse(value);
    const row = suffix === undefined ? undefined : await this.samples.byIgsn(suffix, manager);
    return row && this.policy.canView(accessFacts(row), caller, this.clock.now()) ? row : undefined;
  }

  /**
   * GET /api/samples/: newest first, then id, unless `ordering` says otherwise. The page and the count run side by side; the count is
   * exact up to EXACT_COUNT_LIMIT matches and an estimate beyond (SampleRepository.count).
   */
  async search(
    query: SampleSearchQuery,
    page: PageRequest,
    user: AuthenticatedUser | undefined,
    order: SampleOrder = DEFAULT_SAMPLE_ORDER,
  ): Promise<{ count: SampleCount; more: boolean; data: SampleDto[] }> {
    const { where, params, caller } = await this.searchCondition(query, user);
    const condition: SqlCondition = { sql: where, params };
    // Conditions whose best plan depends on the values (a rare name or a common one, a small box
    // or the whole globe) are planned for their values; the others run as prepared statements.
    const valueDependent = VALUE_DEPENDENT_FILTERS.some((name) => query[name]?.trim());
    const { count, ...found } = await this.samples.searchWithCount(
      condition,
      { limit: page.pageSize, offset: page.offset, order },
      valueDependent,
    );
    return {
      count: this.settle(count, page, found.rows.length, found.more),
      more: found.more,
      data: found.rows.map((row) => this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), caller))),
    };
  }

  /**
   * An estimate is corrected by what the page itself proves: on the last page the exact total is
   * known (offset + rows), and a page followed by more rows bounds the total from below.
   */
  private settle(count: SampleCount, page: PageRequest, rows: number, more: boolean): SampleCount {
    if (count.exact) return count;
    if (!more && (rows > 0 || page.offset === 0)) return { count: page.offset + rows, exact: true };
    return { count: Math.max(count.count, page.offset + rows + (more ? 1 : 0)), exact: false };
  }
}
