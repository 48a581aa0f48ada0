import { Injectable } from '@nestjs/common';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { Sql } from '../../core/database/sql';
import { ApiError } from '../../core/http/api-error';
import { PageRequest } from '../../core/http/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { ObjectTypeResolver } from '../vocabularies/object-type.resolver';
import { VocabulariesService } from '../vocabularies/vocabularies.service';
import { SEARCH_SCOPES } from './dto/sample-write.dto';
import { SampleDto } from './dto/sample.dto';
import { IgsnService } from './igsn.service';
import { SampleAccessPolicy, SampleCaller } from './sample-access.policy';
import { DEFAULT_SAMPLE_ORDER, SampleOrder } from './sample-ordering';
import { SEARCH_VALUE_FILTERS, SampleSearchQuery, orcidOf } from './sample-search';
import { SearchCriteria, SearchSamplesQueryDto } from './dto/search-samples-query.dto';
import { SampleCount, SampleFilters, SampleSearchRepository, SampleSearchScope } from './sample-search.repository';
import { SampleMapper, accessFacts } from './sample.mapper';
import { SampleReader } from './sample-reader';
import { SampleNameStatistics } from './sample-name-statistics';

/** Filters whose selectivity depends on their value (see search()). */
const VALUE_DEPENDENT_FILTERS = [...SEARCH_VALUE_FILTERS, 'registry_code'] as const;

/** Filters matching substrings on the trigram indexes. */
const TEXT_FILTERS = ['q', 'name', 'igsn'] as const;

/** Whether any of `names` is given in the query, not blank. */
function anyGiven(names: readonly string[], given: Record<string, unknown>): boolean {
  return names.some((name) => {
    const value = given[name];
    return typeof value === 'string' && value.trim() !== '';
  });
}

/** Whether a search's query (after withoutSearchAliases) matches substrings: `q`, `name` or `igsn` not blank. */
export function searchesText(given: Record<string, unknown>): boolean {
  return anyGiven(TEXT_FILTERS, given);
}

/** A search's condition on alias `s`, and the caller it was built for. */
export interface SampleSearchCondition {
  where: Sql;
  caller?: SampleCaller;
  /** The search looks at what the public may see (most of the catalogue), not the caller's own samples. */
  public?: boolean;
  /** The whole public catalogue: the public scope and no filter. */
  catalogue?: boolean;
  /** The public scope and one filter, a text (`q` or `name`): that text. */
  publicText?: string;
}

/**
 * The sample search: GET /api/samples/, and the selection of exports and label sheets. The query is
 * checked here (a bad value is a 400) and turned into filters; SampleSearchRepository writes the SQL.
 */
@Injectable()
export class SampleSearchService {
  constructor(
    private readonly sampleSearchRepository: SampleSearchRepository,
    private readonly sampleReader: SampleReader,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly objectTypes: ObjectTypeResolver,
    private readonly vocabulariesService: VocabulariesService,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
    private readonly nameStatistics: SampleNameStatistics,
  ) {}

  /**
   * The condition of a search (also used by exports and label sheets): the query is checked by
   * SearchSamplesQueryDto (a bad value is a 400), its references resolved here, and
   * SampleSearchRepository.searchCondition writes the SQL.
   */
  async searchCondition(query: SampleSearchQuery, user: AuthenticatedUser | undefined): Promise<SampleSearchCondition> {
    const caller = await this.policy.caller(user);
    // A scope that needs a token is a 401 before any other parameter is looked at.
    const asked = (query as Record<string, unknown>).scope;
    if (!caller && asked !== 'public' && (SEARCH_SCOPES as readonly unknown[]).includes(asked)) {
      throw ApiError.unauthorized(`scope=${String(asked)} needs a token.`);
    }
    const criteria = SearchSamplesQueryDto.parse(query).criteria();
    const scope = criteria.scope ?? (caller ? 'personal' : 'public');
    const searchScope: SampleSearchScope =
      scope === 'public' || !caller
        ? { public: this.policy.publicCondition('s', this.clock.now()) }
        : { scope, userId: caller.user.userId, teamIds: caller.teams.map((team) => team.teamId) };
    const filters = await this.filters(criteria, caller);
    const where = this.sampleSearchRepository.searchCondition(searchScope, filters);
    const open = 'public' in searchScope;
    const { q, name, nameNarrowing: _narrowing, ...others } = filters;
    const byTextAlone =
      Object.values(others).every((value) => value === undefined) && (q === undefined) !== (name === undefined);
    return {
      where,
      caller,
      public: open,
      catalogue: open && Object.values(filters).every((value) => value === undefined),
      publicText: open && byTextAlone ? (q?.text ?? name) : undefined,
    };
  }

  /** The samples of a batch that the caller may see, as a search condition (label sheets). */
  async batchCondition(batchId: number, user: AuthenticatedUser | undefined): Promise<SampleSearchCondition> {
    const caller = await this.policy.caller(user);
    const visible = this.policy.visibleCondition('s', caller, this.clock.now());
    return { where: this.sampleSearchRepository.narrowed(visible, { batchId }), caller };
  }

  /**
   * The criteria as filters, their references resolved (object types, countries, registry codes,
   * the parent, the collectors): a reference that names nothing is a 400. Each list is resolved in
   * one statement (issue 21 §5).
   */
  private async filters(criteria: SearchCriteria, caller: SampleCaller | undefined): Promise<SampleFilters> {
    const withoutDoiPrefix = (value: string) => this.igsnService.withoutDoiPrefix(value) ?? value;
    const filters: SampleFilters = {
      isDraft: criteria.isDraft,
      q:
        criteria.q === undefined
          ? undefined
          : {
              text: criteria.q,
              igsn: withoutDoiPrefix(criteria.q),
              narrowing: this.nameStatistics.narrowing(criteria.q.toLowerCase()),
            },
      name: criteria.name,
      nameNarrowing:
        criteria.name === undefined ? undefined : this.nameStatistics.narrowing(criteria.name.toLowerCase()),
      igsn: criteria.igsn === undefined ? undefined : withoutDoiPrefix(criteria.igsn),
      storeStatus: criteria.storeStatus,
      externalSampleId: criteria.externalSampleId,
      bbox: criteria.bbox,
      sampling: criteria.sampling,
      created: criteria.created,
    };
    if (criteria.objectTypes.length) {
      const objectTypes = await this.objectTypes.resolveMany(criteria.objectTypes, { field: 'object_type' });
      filters.objectTypeIds = objectTypes.map((objectType) => objectType.id);
    }
    if (criteria.countries.length) {
      filters.countryCodes = await this.vocabulariesService.resolveCountryCodes(criteria.countries, 'country');
    }
    if (criteria.registryCodes.length) {
      const [unknown] = await this.accountsService.unknownRegistryCodes(criteria.registryCodes);
      if (unknown !== undefined) throw ApiError.invalidField('registry_code', `"${unknown}" is not a registry code`);
      filters.registryCodes = criteria.registryCodes;
    }
    if (criteria.parent !== undefined) filters.parentId = await this.visibleParentId(criteria.parent, caller);
    if (criteria.collector !== undefined) {
      const orcid = orcidOf(criteria.collector);
      filters.collectorIds = await this.sampleSearchRepository.collectorIdsMatching(
        orcid ? { orcid } : { name: criteria.collector },
      );
    }
    return filters;
  }

  /**
   * The id of the sample `parent` names, when the caller may see it. A parent that does not exist
   * and one the caller may not see get the same 400, so the filter reveals nothing about hidden samples.
   */
  private async visibleParentId(parent: string, caller: SampleCaller | undefined): Promise<string> {
    const row = await this.sampleReader.visibleRowByIgsn(parent, caller);
    if (!row) throw ApiError.invalidField('parent', `no sample ${parent} that you may see`);
    return String(row.id);
  }

  /**
   * GET /api/samples/: newest first, then id, unless `ordering` says otherwise. The page and the count run side by side; the count is
   * exact up to EXACT_COUNT_LIMIT matches and an estimate beyond, and an estimate too where counting
   * would cost more than the page (a common `q` term, a table without statistics: see
   * SampleSearchRepository.searchWithCount and docs/decisions/0011-counts-no-dearer-than-the-page.md).
   */
  async search(
    query: SampleSearchQuery,
    page: PageRequest,
    user: AuthenticatedUser | undefined,
    order: SampleOrder = DEFAULT_SAMPLE_ORDER,
  ): Promise<{ count: SampleCount; more: boolean; data: SampleDto[] }> {
    const { where, caller, public: open, catalogue, publicText } = await this.searchCondition(query, user);
    // Conditions whose best plan depends on the values (a rare name or a common one, a small box
    // or the whole globe) are planned for their values; the others run as prepared statements.
    const given = query as Record<string, unknown>;
    const valueDependent = anyGiven(VALUE_DEPENDENT_FILTERS, given);
    const { count, ...found } = await this.sampleSearchRepository.searchWithCount(
      where,
      // The public catalogue is walked newest first (a page that needs no planner statistics); one's
      // own samples are few beside it and have their owner's indexes.
      { limit: page.pageSize, offset: page.offset, order, walk: open },
      {
        valueDependent,
        textSearch: searchesText(given),
        catalogue,
        estimate: this.knownEstimate({ publicText }),
      },
    );
    return {
      count: this.settle(count, page, found.rows.length, found.more),
      more: found.more,
      data: found.rows.map((row) => this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), caller))),
    };
  }

  /**
   * How many samples a search matches, when known without asking the planner (a statement, planned,
   * for every search): a public search by one text, estimated from the sampled names.
   */
  knownEstimate({ publicText }: Pick<SampleSearchCondition, 'publicText'>): number | undefined {
    return publicText === undefined ? undefined : this.nameStatistics.publicMatches(publicText.toLowerCase());
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
