import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { MatchOptions, createOrMatch, fieldPath } from './common/create-or-match';
import { trimToNull } from '../../core/http/trim';
import { LaunchPlatformInputDto, PlatformInputDto } from './dto/platform-input.dto';
import { LaunchPlatform } from './entities/launch-platform.entity';
import { Platform } from './entities/platform.entity';
import { VocabulariesService } from './vocabularies.service';

/**
 * Platforms and launch platforms named in sample writes: matched by label (trimmed,
 * case-insensitive), created on first use. The first writer's type and description stay; a later
 * write naming the same platform only links to it.
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
    const { id } = await createOrMatch(manager, {
      table: 'platform',
      label,
      uniqueBy: 'label',
      values: {
        label,
        platform_type_id: type?.id ?? null,
        description: trimToNull(input.description),
        created_by: options.createdBy ?? null,
      },
    });
    return manager.findOneOrFail(Platform, { where: { id }, relations: { platformType: true } });
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
    const { id } = await createOrMatch(manager, {
      table: 'launch_platform',
      label,
      uniqueBy: 'label',
      values: { label, launch_type_id: type?.id ?? null, created_by: options.createdBy ?? null },
    });
    return manager.findOneOrFail(LaunchPlatform, { where: { id }, relations: { launchType: true } });
  }

  private label(value: string | undefined, field: string | undefined): string {
    const label = trimToNull(value);
    if (!label) throw ApiError.invalidField(fieldPath(field, 'label'), 'must not be empty');
    if (label.length > 255) throw ApiError.invalidField(fieldPath(field, 'label'), 'must be at most 255 characters');
    return label;
  }
}
