import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { AccountsService } from '../accounts/accounts.service';
import { ArchiveInputDto } from '../agents/dto/archive.dto';
import { CollectorInputDto } from '../agents/dto/collector-input.dto';
import { ArchivesService } from '../agents/archives.service';
import { CollectorsService } from '../agents/collectors.service';
import { LaunchPlatformInputDto, PlatformInputDto } from '../vocabularies/dto/platform-input.dto';
import { ObjectTypeResolver } from '../vocabularies/object-type.resolver';
import { PlatformsService } from '../vocabularies/platforms.service';
import { TermVocabulary, VocabulariesService } from '../vocabularies/vocabularies.service';
import { SampleCaller } from './sample-access.policy';

/** How a sample write turns the references it names into ids: one lookup per call. */
export interface SampleReferenceLookups {
  objectTypeId(value: unknown, manager: EntityManager): Promise<number>;
  termLabel(
    vocabulary: TermVocabulary,
    label: string | null,
    field: string,
    manager: EntityManager,
  ): Promise<string | null>;
  countryCode(value: string | null, manager: EntityManager): Promise<string | null>;
  platformId(input: PlatformInputDto, createdBy: number, manager: EntityManager): Promise<number>;
  launchPlatformId(input: LaunchPlatformInputDto, createdBy: number, manager: EntityManager): Promise<number>;
  archiveId(input: ArchiveInputDto, field: string, createdBy: number, manager: EntityManager): Promise<number>;
  collectorIds(inputs: CollectorInputDto[], createdBy: number, manager: EntityManager): Promise<number[]>;
  registryCode(
    given: string | undefined,
    caller: SampleCaller,
    manager: EntityManager,
  ): Promise<{ code: string; teamOwnerId: number | null }>;
  /** Lower-cased labels of the deprecated material types (`for_registration` false). */
  retiredMaterialTypes(manager: EntityManager): Promise<Set<string>>;
}

/** How many answers about reference data are kept (a client may spell one term many ways). */
const REFERENCE_DATA_ANSWERS = 1000;

/**
 * Answers about reference data that changes only with a migration — object types, vocabulary
 * terms, countries, the deprecated material types — kept for the life of the process, so a write
 * naming known terms asks the database nothing about them. Only answers are kept, never errors: an
 * unknown term is looked up (and refused) each time it is sent. Platforms, archives, collectors and
 * registry codes are not reference data in this sense (they are created, merged and granted).
 */
class ReferenceDataAnswers {
  private readonly answers = new Map<string, unknown>();

  async get<T>(key: string, lookUp: () => Promise<T>): Promise<T> {
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const answer = await lookUp();
    if (this.answers.size >= REFERENCE_DATA_ANSWERS) this.answers.clear();
    this.answers.set(key, answer);
    return answer;
  }
}

/**
 * The reference-data services behind sample writes. `memoized()` gives a per-batch copy that asks
 * each distinct question once (a 50,000-row batch names the same few object types, countries and
 * archives over and over); a failed lookup is remembered too, so every row naming it gets the error.
 */
@Injectable()
export class SampleReferences implements SampleReferenceLookups {
  constructor(
    private readonly accountsService: AccountsService,
    private readonly objectTypes: ObjectTypeResolver,
    private readonly vocabulariesService: VocabulariesService,
    private readonly collectorsService: CollectorsService,
    private readonly platformsService: PlatformsService,
    private readonly archivesService: ArchivesService,
  ) {}

  private readonly referenceData = new ReferenceDataAnswers();

  async objectTypeId(value: unknown, manager: EntityManager): Promise<number> {
    return this.referenceData.get(
      JSON.stringify(['object-type', value]),
      async () => (await this.objectTypes.resolve(value, { manager })).id,
    );
  }

  async termLabel(
    vocabulary: TermVocabulary,
    label: string | null,
    field: string,
    manager: EntityManager,
  ): Promise<string | null> {
    return this.referenceData.get(
      JSON.stringify(['term', vocabulary, label, field]),
      async () => (await this.vocabulariesService.resolveTerm(vocabulary, label, field, manager))?.label ?? null,
    );
  }

  async countryCode(value: string | null, manager: EntityManager): Promise<string | null> {
    return this.referenceData.get(
      JSON.stringify(['country', value]),
      async () => (await this.vocabulariesService.resolveCountry(value, 'country', manager))?.iso3166code ?? null,
    );
  }

  async platformId(input: PlatformInputDto, createdBy: number, manager: EntityManager): Promise<number> {
    return (await this.platformsService.matchPlatform(input, { manager, createdBy, field: 'platform' })).id;
  }

  async launchPlatformId(input: LaunchPlatformInputDto, createdBy: number, manager: EntityManager): Promise<number> {
    return (await this.platformsService.matchLaunchPlatform(input, { manager, createdBy, field: 'launch_platform' }))
      .id;
  }

  async archiveId(input: ArchiveInputDto, field: string, createdBy: number, manager: EntityManager): Promise<number> {
    return (await this.archivesService.match(input, { manager, createdBy, field })).id;
  }

  async collectorIds(inputs: CollectorInputDto[], createdBy: number, manager: EntityManager): Promise<number[]> {
    return (await this.collectorsService.resolve(inputs, { manager, createdBy, field: 'collectors' })).map((c) => c.id);
  }

  async registryCode(
    given: string | undefined,
    caller: SampleCaller,
    manager: EntityManager,
  ): Promise<{ code: string; teamOwnerId: number | null }> {
    let code: string;
    if (given === undefined) {
      const usable = await this.accountsService.usableRegistryCodes(caller.user.userId, manager);
      if (usable.length !== 1) {
        throw ApiError.invalidField(
          'registry_code',
          usable.length ? `is required: you can register under ${usable.join(', ')}` : 'is required',
        );
      }
      code = usable[0];
    } else {
      code = given.trim().toUpperCase();
    }
    const owner = await this.accountsService.registryCodeOwner(code, manager);
    if (!owner) throw ApiError.invalidField('registry_code', `unknown registry code ${code}`);
    if (!(await this.accountsService.canUseRegistryCode(caller.user, code, manager))) {
      throw ApiError.forbidden(`You may not register samples under registry code ${code}.`);
    }
    return { code, teamOwnerId: owner.teamOwnerId };
  }

  retiredMaterialTypes(manager: EntityManager): Promise<Set<string>> {
    return this.referenceData.get('retired-material-types', () =>
      this.vocabulariesService.retiredMaterialTypes(manager),
    );
  }

  /** A per-batch copy that answers each distinct lookup once. */
  memoized(): SampleReferenceLookups {
    const cache = new Map<string, Promise<unknown>>();
    const memo = <T>(key: string, compute: () => Promise<T>): Promise<T> => {
      let hit = cache.get(key) as Promise<T> | undefined;
      if (!hit) {
        hit = compute();
        cache.set(key, hit);
      }
      return hit;
    };
    // Most answers are asked by strings (a term in a vocabulary for a field, a code): those strings,
    // each after its length, are the key, without JSON; a question with an object in it is keyed by
    // its JSON. The markers keep the three forms apart.
    const key = (kind: string, ...parts: unknown[]): string => {
      let text = kind;
      for (const part of parts) {
        if (typeof part === 'string') text += `\u0002${part.length}:${part}`;
        else if (part === undefined) text += '\u0001u';
        else if (part === null) text += '\u0001n';
        else return `${kind}\u0003${JSON.stringify(parts)}`;
      }
      return text;
    };
    return {
      objectTypeId: (value, manager) => memo(key('ot', value), () => this.objectTypeId(value, manager)),
      termLabel: (vocabulary, label, field, manager) =>
        memo(key('term', vocabulary, label, field), () => this.termLabel(vocabulary, label, field, manager)),
      countryCode: (value, manager) => memo(key('country', value), () => this.countryCode(value, manager)),
      platformId: (input, createdBy, manager) =>
        memo(key('platform', input), () => this.platformId(input, createdBy, manager)),
      launchPlatformId: (input, createdBy, manager) =>
        memo(key('launch', input), () => this.launchPlatformId(input, createdBy, manager)),
      archiveId: (input, field, createdBy, manager) =>
        memo(key('archive', input, field), () => this.archiveId(input, field, createdBy, manager)),
      collectorIds: (inputs, createdBy, manager) =>
        memo(key('collectors', inputs), () => this.collectorIds(inputs, createdBy, manager)),
      registryCode: (given, caller, manager) =>
        memo(key('code', given), () => this.registryCode(given, caller, manager)),
      retiredMaterialTypes: (manager) => memo(key('retired-material-types'), () => this.retiredMaterialTypes(manager)),
    };
  }
}
