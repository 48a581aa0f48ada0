import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { canEditAgent } from '../agents/agent-edit.policy';
import { MatchOptions, createOrMatch, fieldPath } from './common/create-or-match';
import { definedOnly } from './common/defined-only';
import { storedEqualsSent } from './common/stored-equals-sent';
import { trimToNull } from '../../core/http/trim';
import { LaunchPlatformInputDto, PlatformInputDto, PlatformPatchDto } from './dto/platform-input.dto';
import { LaunchPlatform } from './entities/launch-platform.entity';
import { Platform } from './entities/platform.entity';
import { VocabulariesService } from './vocabularies.service';

/**
 * Platforms and launch platforms named in sample writes: matched by label (trimmed,
 * case-insensitive), created on first use. A later write naming the same platform must send the
 * same type and description, or leave them out (a blank the platform has is filled in): a
 * different value is a 409 naming the field and the stored value, never silently dropped.
 * Corrections go through PATCH /api/platforms/{id}/.
 */
@Injectable()
export class PlatformsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly vocabularies: VocabulariesService,
  ) {}

  async matchPlatform(input: PlatformInputDto, options: MatchOptions = {}): Promise<Platform> {
    const manager = options.manager ?? this.dataSource.manager;
    const label = this.label(input.label, options.field);
    const type = await this.vocabularies.resolveTerm(
      'platform_type',
      input.platform_type,
      fieldPath(options.field, 'platform_type'),
      manager,
    );
    const description = trimToNull(input.description);
    const { id, created } = await createOrMatch(manager, {
      table: 'platform',
      label,
      uniqueBy: 'label',
      values: { label, platform_type_id: type?.id ?? null, description, created_by: options.createdBy ?? null },
    });
    const load = () => manager.findOneOrFail(Platform, { where: { id }, relations: { platformType: true } });
    if (created) return load();
    return storedEqualsSent(manager, {
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
    const manager = options.manager ?? this.dataSource.manager;
    const label = this.label(input.label, options.field);
    const type = await this.vocabularies.resolveTerm(
      'launch_type',
      input.launch_type,
      fieldPath(options.field, 'launch_type'),
      manager,
    );
    const { id, created } = await createOrMatch(manager, {
      table: 'launch_platform',
      label,
      uniqueBy: 'label',
      values: { label, launch_type_id: type?.id ?? null, created_by: options.createdBy ?? null },
    });
    const load = () => manager.findOneOrFail(LaunchPlatform, { where: { id }, relations: { launchType: true } });
    if (created) return load();
    return storedEqualsSent(manager, {
      table: 'launch_platform',
      id,
      describe: (row: LaunchPlatform) => `launch platform ${row.id} "${row.label}"`,
      load,
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
    const platform = await this.dataSource.manager.findOne(Platform, {
      where: { id },
      relations: { platformType: true },
    });
    if (!platform) throw ApiError.notFound(`Platform ${id} not found.`);
    return platform;
  }

  /**
   * PATCH /api/platforms/{id}/: the fields sent replace the stored ones. Only callers who may edit
   * the row (its creator, staff, admins); 409 when the new label is another platform's.
   */
  async update(id: number, patch: PlatformPatchDto, user: AuthenticatedUser): Promise<Platform> {
    const current = await this.get(id);
    if (!canEditAgent(current, user)) throw ApiError.forbidden('You may not edit this platform.');
    const label = patch.label === undefined ? undefined : this.label(patch.label ?? undefined, undefined);
    const type =
      patch.platform_type === undefined
        ? undefined
        : await this.vocabularies.resolveTerm('platform_type', patch.platform_type, 'platform_type');
    if (label !== undefined) {
      const [other] = await this.dataSource.manager.query<{ id: number }[]>(
        'SELECT id FROM platform WHERE lower(btrim(label)) = lower($1) AND id <> $2',
        [label, id],
      );
      if (other) {
        throw ApiError.conflict(`A platform labelled "${label}" already exists (id ${other.id}).`, {
          label: ['a platform with this label already exists'],
        });
      }
    }
    await this.dataSource.manager.update(
      Platform,
      id,
      definedOnly({
        label,
        description: patch.description,
        platformTypeId: type === undefined ? undefined : (type?.id ?? null),
      }),
    );
    return this.get(id);
  }

  private label(value: string | undefined, field: string | undefined): string {
    const label = trimToNull(value);
    if (!label) throw ApiError.invalidField(fieldPath(field, 'label'), 'must not be empty');
    if (label.length > 255) throw ApiError.invalidField(fieldPath(field, 'label'), 'must be at most 255 characters');
    return label;
  }
}
