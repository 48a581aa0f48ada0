import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { assertMayChangeSharedAgent } from './common/agent-edit.policy';
import { AgentUsageRepository } from './common/agent-usage.repository';
import { MatchOptions, fieldPath } from './common/create-or-match';
import { definedOnly } from './common/defined-only';
import { refuseTakenLabel } from './common/label-taken';
import { LabelledRowRepository } from './common/labelled-row.repository';
import { storedEqualsSent } from './common/stored-equals-sent';
import { trimToNull } from '../../core/http/trim';
import {
  LaunchPlatformInputDto,
  LaunchPlatformPatchDto,
  PlatformInputDto,
  PlatformPatchDto,
} from './dto/platform-input.dto';
import { LaunchPlatform } from './entities/launch-platform.entity';
import { Platform } from './entities/platform.entity';
import { PlatformRepository, PlatformRows, PlatformTable } from './platform.repository';
import { VocabulariesService } from './vocabularies.service';

/**
 * Platforms and launch platforms named in sample writes: matched by label (trimmed,
 * case-insensitive), created on first use. A later write naming the same platform must send the
 * same type and description, or leave them out (a blank the platform has is filled in): a
 * different value is a 409 naming the field and the stored value, never silently dropped.
 * Corrections go through PATCH /api/platforms/{id}/ and /api/launch-platforms/{id}/.
 */
@Injectable()
export class PlatformsService {
  constructor(
    private readonly agentUsageRepository: AgentUsageRepository,
    private readonly platformRepository: PlatformRepository,
    private readonly labelledRowRepository: LabelledRowRepository,
    private readonly vocabulariesService: VocabulariesService,
  ) {}

  async matchPlatform(input: PlatformInputDto, options: MatchOptions = {}): Promise<Platform> {
    const manager = options.manager;
    const label = this.label(input.label, options.field);
    const type = await this.vocabulariesService.resolveTerm(
      'platform_type',
      input.platform_type,
      fieldPath(options.field, 'platform_type'),
      manager,
    );
    const description = trimToNull(input.description);
    const { id, created } = await this.labelledRowRepository.createOrMatch(
      {
        table: 'platform',
        label,
        uniqueBy: 'label',
        values: { label, platform_type_id: type?.id ?? null, description, created_by: options.createdBy ?? null },
      },
      manager,
    );
    const load = () => this.platformRepository.findOrFail('platform', id, manager);
    if (created) return load();
    return storedEqualsSent(this.labelledRowRepository, manager, {
      table: 'platform',
      id,
      describe: (row: Platform) => `platform ${row.id} "${row.label}"`,
      load,
      editPath: `/api/platforms/${id}/`,
      attributes: [
        {
          field: fieldPath(options.field, 'platform_type'),
          column: 'platform_type_id',
          sent: type?.id ?? null,
          sentShown: type?.label,
          stored: (row) => row.platformTypeId,
          shown: (row) => row.platformType?.label ?? null,
        },
        {
          field: fieldPath(options.field, 'description'),
          column: 'description',
          sent: description,
          stored: (row) => row.description,
        },
      ],
    });
  }

  async matchLaunchPlatform(input: LaunchPlatformInputDto, options: MatchOptions = {}): Promise<LaunchPlatform> {
    const manager = options.manager;
    const label = this.label(input.label, options.field);
    const type = await this.vocabulariesService.resolveTerm(
      'launch_type',
      input.launch_type,
      fieldPath(options.field, 'launch_type'),
      manager,
    );
    const { id, created } = await this.labelledRowRepository.createOrMatch(
      {
        table: 'launch_platform',
        label,
        uniqueBy: 'label',
        values: { label, launch_type_id: type?.id ?? null, created_by: options.createdBy ?? null },
      },
      manager,
    );
    const load = () => this.platformRepository.findOrFail('launch_platform', id, manager);
    if (created) return load();
    return storedEqualsSent(this.labelledRowRepository, manager, {
      table: 'launch_platform',
      id,
      describe: (row: LaunchPlatform) => `launch platform ${row.id} "${row.label}"`,
      load,
      editPath: `/api/launch-platforms/${id}/`,
      attributes: [
        {
          field: fieldPath(options.field, 'launch_type'),
          column: 'launch_type_id',
          sent: type?.id ?? null,
          sentShown: type?.label,
          stored: (row) => row.launchTypeId,
          shown: (row) => row.launchType?.label ?? null,
        },
      ],
    });
  }

  /** 404 when there is no such platform. */
  async get(id: number): Promise<Platform> {
    const platform = await this.platformRepository.find('platform', id);
    if (!platform) throw ApiError.notFound(`Platform ${id} not found.`);
    return platform;
  }

  /** 404 when there is no such launch platform. */
  async getLaunchPlatform(id: number): Promise<LaunchPlatform> {
    const platform = await this.platformRepository.find('launch_platform', id);
    if (!platform) throw ApiError.notFound(`Launch platform ${id} not found.`);
    return platform;
  }

  /**
   * PATCH /api/platforms/{id}/: the fields sent replace the stored ones. Only callers who may edit
   * the row (its creator, staff, admins); 409 when the new label is another platform's.
   */
  async update(id: number, patch: PlatformPatchDto, user: AuthenticatedUser): Promise<Platform> {
    return this.patch({ table: 'platform', noun: 'platform', get: (key) => this.get(key) }, id, user, {
      label: patch.label,
      columns: async () => ({
        description: patch.description,
        platformTypeId: await this.termIdPatch('platform_type', patch.platform_type),
      }),
    });
  }

  /** PATCH /api/launch-platforms/{id}/: as PATCH /api/platforms/{id}/, with a launch type. */
  async updateLaunchPlatform(
    id: number,
    patch: LaunchPlatformPatchDto,
    user: AuthenticatedUser,
  ): Promise<LaunchPlatform> {
    const kind = {
      table: 'launch_platform' as const,
      noun: 'launch platform',
      get: (key: number) => this.getLaunchPlatform(key),
    };
    return this.patch(kind, id, user, {
      label: patch.label,
      columns: async () => ({ launchTypeId: await this.termIdPatch('launch_type', patch.launch_type) }),
    });
  }

  /**
   * The PATCH of a platform or launch platform: 404 unknown, 403 for callers who may not edit it
   * (canEditAgent, as for the agents), 400 for an empty label or an unknown vocabulary term, 409 for
   * another row's label; then the fields sent replace the stored ones.
   */
  private async patch<K extends PlatformTable>(
    kind: {
      table: K;
      noun: string;
      get: (id: number) => Promise<PlatformRows[K]>;
    },
    id: number,
    user: AuthenticatedUser,
    patch: { label?: string | null; columns: () => Promise<Record<string, unknown>> },
  ): Promise<PlatformRows[K]> {
    const current = await kind.get(id);
    await assertMayChangeSharedAgent(current, user, kind.noun, () =>
      this.agentUsageRepository.usedByOthers(kind.table, id, user),
    );
    const label = patch.label === undefined ? undefined : this.label(patch.label ?? undefined, undefined);
    const columns = await patch.columns();
    if (label !== undefined)
      await refuseTakenLabel(this.labelledRowRepository, undefined, { table: kind.table, noun: kind.noun, label, id });
    await this.platformRepository.update(kind.table, id, definedOnly({ label, ...columns }));
    return kind.get(id);
  }

  /** A PATCH's vocabulary field (named as the vocabulary): left alone when absent, cleared by null, else checked (400). */
  private async termIdPatch(
    vocabulary: 'platform_type' | 'launch_type',
    value: string | null | undefined,
  ): Promise<number | null | undefined> {
    if (value === undefined) return undefined;
    return (await this.vocabulariesService.resolveTerm(vocabulary, value, vocabulary))?.id ?? null;
  }

  private label(value: string | undefined, field: string | undefined): string {
    const label = trimToNull(value);
    if (!label) throw ApiError.invalidField(fieldPath(field, 'label'), 'must not be empty');
    if (label.length > 255) throw ApiError.invalidField(fieldPath(field, 'label'), 'must be at most 255 characters');
    return label;
  }
}
