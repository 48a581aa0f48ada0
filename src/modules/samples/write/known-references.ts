import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SqlLookup, lookUpTogether } from '../../../core/database/sql-lookup';
import { AccountsService } from '../../accounts/accounts.service';
import { ArchivesService } from '../../agents/archives.service';
import { CollectorsService } from '../../agents/collectors.service';
import { ArchiveInputDto } from '../../agents/dto/archive.dto';
import { CollectorInputDto } from '../../agents/dto/collector-input.dto';
import { CreateSampleDto, isRelatedResourceRef } from '../dto/sample-write.dto';
import { SampleCaller } from '../sample-access.policy';
import { withCanonicalFieldNames } from '../sample-field-aliases';
import { SampleReferenceLookups } from '../sample-references';
import { SampleWriteRepository } from '../sample-write.repository';

/** The archive fields of a sample write. */
const ARCHIVE_FIELDS = ['current_archive', 'original_archive'] as const;
type ArchiveField = (typeof ARCHIVE_FIELDS)[number];

/** The longest registry code (`IE` + 3): no other code's namespace lies inside its own. */
const LONGEST_CODE = 5;

/**
 * What one statement found about a register body's references before its write: the registry code
 * (when the caller may use it), the archives and the collectors that are stored already as sent. `complete` when that is every reference the write needs besides those kept
 * in memory (object types, terms, countries): then the sample goes in with its insert alone.
 */
export interface KnownReferences {
  registryCode?: { code: string; teamOwnerId: number | null };
  archiveIds: Partial<Record<ArchiveField, number>>;
  collectorIds?: number[];
  complete: boolean;
}

/**
 * Registration's reference lookups in one round trip (issue 23 §3). Nothing is kept between
 * requests: the registry-code grant, the archives and the people are read as they are when the
 * request comes, so a grant revoked or an agent renamed by any API process is seen by the next
 * registration. What the statement cannot settle (unknown names, fields to fill in or to refuse,
 * platforms, related resources, a supplied IGSN, a legacy 3-character code) goes the full way.
 */
@Injectable()
export class KnownReferenceLookup {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accountsService: AccountsService,
    private readonly archivesService: ArchivesService,
    private readonly collectorsService: CollectorsService,
    private readonly sampleWriteRepository: SampleWriteRepository,
  ) {}

  /** The references of a register body found in one statement; undefined when the body names some it cannot look up so. */
  async lookUp(body: CreateSampleDto, caller: SampleCaller): Promise<KnownReferences | undefined> {
    const dto = withCanonicalFieldNames(body);
    const given = dto.registry_code ?? dto.sesar_code;
    const code = given?.trim().toUpperCase();
    if (!code || code.length !== LONGEST_CODE || dto.igsn !== undefined) return undefined;
    if (dto.sesar_code !== undefined && dto.sesar_code.trim().toUpperCase() !== code) return undefined;
    const lookups: Record<string, SqlLookup<unknown>> = {
      registry_code: this.accountsService.usableRegistryCodeLookup(caller.user, code),
    };
    let complete = !dto.platform && !dto.launch_platform && !(dto.related_resources ?? []).some(isRelatedResourceRef);
    for (const field of ARCHIVE_FIELDS) {
      const input = dto[field];
      const lookup = input ? this.archivesService.knownLookup(input) : undefined;
      if (lookup) lookups[field] = lookup;
      else if (input) complete = false;
    }
    if (dto.collectors !== undefined) {
      const lookup = this.collectorsService.knownLookup(dto.collectors);
      if (lookup) lookups.collectors = lookup;
      else complete = false;
    }
    const answers = await lookUpTogether(this.dataSource.manager, lookups);
    const registryCode = answers.registry_code as KnownReferences['registryCode'];
    const archiveIds: KnownReferences['archiveIds'] = {};
    for (const field of ARCHIVE_FIELDS) {
      const id = answers[field] as number | undefined;
      if (id !== undefined) archiveIds[field] = id;
      else if (dto[field]) complete = false;
    }
    const collectorIds = answers.collectors as number[] | undefined;
    if (dto.collectors !== undefined && !collectorIds) complete = false;
    return { registryCode, archiveIds, collectorIds, complete: complete && registryCode !== undefined };
  }
}

/**
 * The lookups of a write that starts from what KnownReferenceLookup found: those references as found,
 * every other one asked of `lookups` as usual.
 */
export class KnownReferencesFirst implements SampleReferenceLookups {
  constructor(
    private readonly lookups: SampleReferenceLookups,
    private readonly known: KnownReferences,
  ) {}

  objectTypeId(value: unknown, manager: EntityManager): Promise<number> {
    return this.lookups.objectTypeId(value, manager);
  }

  termLabel(...args: Parameters<SampleReferenceLookups['termLabel']>): Promise<string | null> {
    return this.lookups.termLabel(...args);
  }

  countryCode(value: string | null, manager: EntityManager): Promise<string | null> {
    return this.lookups.countryCode(value, manager);
  }

  platformId(...args: Parameters<SampleReferenceLookups['platformId']>): Promise<number> {
    return this.lookups.platformId(...args);
  }

  launchPlatformId(...args: Parameters<SampleReferenceLookups['launchPlatformId']>): Promise<number> {
    return this.lookups.launchPlatformId(...args);
  }

  async archiveId(input: ArchiveInputDto, field: string, createdBy: number, manager: EntityManager): Promise<number> {
    return this.known.archiveIds[field as ArchiveField] ?? this.lookups.archiveId(input, field, createdBy, manager);
  }

  async collectorIds(inputs: CollectorInputDto[], createdBy: number, manager: EntityManager): Promise<number[]> {
    return this.known.collectorIds ?? this.lookups.collectorIds(inputs, createdBy, manager);
  }

  async registryCode(
    given: string | undefined,
    caller: SampleCaller,
    manager: EntityManager,
  ): Promise<{ code: string; teamOwnerId: number | null }> {
    return this.known.registryCode ?? this.lookups.registryCode(given, caller, manager);
  }

  retiredMaterialTypes(manager: EntityManager): Promise<Set<string>> {
    return this.lookups.retiredMaterialTypes(manager);
  }
}

/** What a write that must start over (its references changed under it) may still use: the registry code. */
export function codeOnly(known: KnownReferences): KnownReferences {
  return { registryCode: known.registryCode, archiveIds: {}, complete: false };
}
