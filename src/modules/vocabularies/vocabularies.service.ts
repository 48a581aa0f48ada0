import { Injectable } from '@nestjs/common';
import { EntityManager, EntityTarget } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { AgentRoleType } from './entities/agent-role-type.entity';
import { Country } from './entities/country.entity';
import { GeologicTimeScale } from './entities/geologic-time-scale.entity';
import { LaunchType } from './entities/launch-type.entity';
import { LocationMethod } from './entities/location-method.entity';
import { MaterialType } from './entities/material-type.entity';
import { ObjectType } from './entities/object-type.entity';
import { PlatformType } from './entities/platform-type.entity';
import { SamplingMethod } from './entities/sampling-method.entity';
import { VocabularyRepository } from './vocabulary.repository';

/** The flat vocabularies: a label, a description and a URI. */
export const TERM_VOCABULARIES = {
  material_type: MaterialType,
  location_method: LocationMethod,
  sampling_method: SamplingMethod,
  platform_type: PlatformType,
  launch_type: LaunchType,
} as const;
export type TermVocabulary = keyof typeof TERM_VOCABULARIES;
export type VocabularyTerm = InstanceType<(typeof TERM_VOCABULARIES)[TermVocabulary]>;

const TERM_NAMES: Record<TermVocabulary, string> = {
  material_type: 'material type',
  location_method: 'location method',
  sampling_method: 'sampling method',
  platform_type: 'platform type',
  launch_type: 'launch type',
};

const TERM_PATHS: Record<TermVocabulary, string> = {
  material_type: 'material-types',
  location_method: 'location-methods',
  sampling_method: 'sampling-methods',
  platform_type: 'platform-types',
  launch_type: 'launch-types',
};

/**
 * Lists and searches the seeded vocabularies, and resolves the labels (and country codes) that
 * writes of other features carry (statements in VocabularyRepository). Every method takes an
 * optional EntityManager so it can run inside a caller's transaction.
 */
@Injectable()
export class VocabulariesService {
  constructor(private readonly vocabularyRepository: VocabularyRepository) {}

  /** Active countries; `search` also matches an ISO code exactly. */
  countries(search?: string): Promise<Country[]> {
    return this.vocabularyRepository.search(Country, {
      columns: ['label'],
      codeColumns: ['iso3166code'],
      where: 't.active',
      search,
    });
  }

  agentRoleTypes(search?: string): Promise<AgentRoleType[]> {
    return this.vocabularyRepository.search(AgentRoleType, { columns: ['label'], search });
  }

  /** The whole tree in path order (parents before their children). */
  objectTypes(search?: string): Promise<ObjectType[]> {
    return this.vocabularyRepository.search(
      ObjectType,
      { columns: ['label'], orderBy: 'hierarchical_label', search },
      { parent: true },
    );
  }

  geologicTimeScales(search?: string): Promise<GeologicTimeScale[]> {
    return this.vocabularyRepository.search(GeologicTimeScale, { columns: ['label'], search });
  }

  terms(vocabulary: TermVocabulary, search?: string): Promise<VocabularyTerm[]> {
    return this.vocabularyRepository.search<VocabularyTerm>(TERM_VOCABULARIES[vocabulary], {
      columns: ['label'],
      search,
    });
  }

  materialTypes(search?: string): Promise<MaterialType[]> {
    return this.vocabularyRepository.search(MaterialType, { columns: ['label'], search });
  }

  /** The labels (lower case) of material types new samples may not use (`for_registration` false). */
  async retiredMaterialTypes(manager?: EntityManager): Promise<Set<string>> {
    return new Set(await this.vocabularyRepository.retiredMaterialTypeLabels(manager));
  }

  /** The country id a PATCH sets: undefined when `country` was not sent (kept), null to clear it. */
  async countryIdPatch(value: string | null | undefined): Promise<number | null | undefined> {
    if (value === undefined) return undefined;
    return (await this.resolveCountry(value, 'country'))?.id ?? null;
  }

  /**
   * A country given as an ISO 3166-1 alpha-2 code or a name (case- and accent-insensitive); only
   * active countries. Null or blank → null. Unknown → 400 naming `field`.
   */
  async resolveCountry(
    value: string | null | undefined,
    field = 'country',
    manager?: EntityManager,
  ): Promise<Country | null> {
    const given = value?.trim();
    if (!given) return null;
    const id = await this.vocabularyRepository.activeCountryId(given, manager);
    if (id === undefined) {
      throw ApiError.invalidField(
        field,
        `unknown country "${given}"; give an ISO 3166-1 alpha-2 code or a country name from GET /api/countries/`,
      );
    }
    return this.vocabularyRepository.countryOrFail(id, manager);
  }

  /** ISO 3166-1 alpha-2 codes (upper case) of a search filter, checked in one statement: an unknown one is a 400. */
  async resolveCountryCodes(codes: string[], field = 'country'): Promise<string[]> {
    const known = await this.vocabularyRepository.activeCountryCodes(codes);
    const unknown = codes.find((code) => !known.has(code));
    if (unknown !== undefined) {
      throw ApiError.invalidField(
        field,
        `unknown country "${unknown}"; give an ISO 3166-1 alpha-2 code or a country name from GET /api/countries/`,
      );
    }
    return codes;
  }

  /** A term of a flat vocabulary by label (case-insensitive). Null or blank → null; unknown → 400 naming `field`. */
  async resolveTerm(
    vocabulary: TermVocabulary,
    label: string | null | undefined,
    field: string,
    manager?: EntityManager,
  ): Promise<VocabularyTerm | null> {
    const found = await this.findByLabel<VocabularyTerm>(TERM_VOCABULARIES[vocabulary], label, manager);
    if (found === undefined) return null;
    if (found === null) {
      throw ApiError.invalidField(
        field,
        `unknown ${TERM_NAMES[vocabulary]} "${label?.trim()}"; use a label from GET /api/${TERM_PATHS[vocabulary]}/`,
      );
    }
    return found;
  }

  /** A geologic time unit by label (case-insensitive). Null or blank → null; unknown → 400 naming `field`. */
  async resolveGeologicTimeScale(
    label: string | null | undefined,
    field: string,
    manager?: EntityManager,
  ): Promise<GeologicTimeScale | null> {
    const found = await this.findByLabel(GeologicTimeScale, label, manager);
    if (found === undefined) return null;
    if (found === null) {
      throw ApiError.invalidField(
        field,
        `unknown geologic time unit "${label?.trim()}"; use a label from GET /api/geologic-time-scales/`,
      );
    }
    return found;
  }

  /** An agent role by label (case-insensitive). Null or blank → null; unknown → 400 naming `field`. */
  async resolveAgentRoleType(
    label: string | null | undefined,
    field: string,
    manager?: EntityManager,
  ): Promise<AgentRoleType | null> {
    const found = await this.findByLabel(AgentRoleType, label, manager);
    if (found === undefined) return null;
    if (found === null) {
      throw ApiError.invalidField(
        field,
        `unknown agent role "${label?.trim()}"; use a label from GET /api/agent-role-types/`,
      );
    }
    return found;
  }

  /** undefined when no label was given, null when nothing matches. */
  private async findByLabel<T extends { id: number }>(
    entity: EntityTarget<T>,
    label: string | null | undefined,
    manager?: EntityManager,
  ): Promise<T | null | undefined> {
    const given = label?.trim();
    if (!given) return undefined;
    return this.vocabularyRepository.findByLabel(entity, given, manager);
  }
}
