import { ApiProperty, ApiSchema, PartialType } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { Trim, TrimToNull } from '../../../core/http/trim';
import type { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { canEditAgent } from '../common/agent-edit.policy';
import { LaunchPlatform } from '../entities/launch-platform.entity';
import { Platform } from '../entities/platform.entity';

/**
 * A platform by label, created on first use: `{label, platform_type, description}`. The type and
 * description sent must equal what an existing platform of this label stores (blanks are filled in).
 */
@ApiSchema({ name: 'PlatformInput' })
@IgnoresReadOnlyFields('id')
export class PlatformInputDto {
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  label: string;

  /** A platform-type label (GET /api/platform-types/), case-insensitive. */
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  platform_type?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  description?: string | null;
}

/** A launch platform by label, created on first use: `{label, launch_type}`. */
@ApiSchema({ name: 'LaunchPlatformInput' })
@IgnoresReadOnlyFields('id')
export class LaunchPlatformInputDto {
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  label: string;

  /** A launch-type label (GET /api/launch-types/), case-insensitive. */
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  launch_type?: string | null;
}

/** A platform as read: GET and PATCH /api/platforms/{id}/. */
@ApiSchema({ name: 'Platform' })
export class PlatformDto {
  @ApiProperty({ type: 'integer', example: 5, readOnly: true })
  id: number;

  @ApiProperty({ example: 'R/V Atlantis', maxLength: 255 })
  label: string;

  /** A platform-type label (GET /api/platform-types/). */
  @ApiProperty({ example: 'Ship', nullable: true, type: String })
  platform_type: string | null;

  @ApiProperty({ example: 'Research vessel', nullable: true, type: String })
  description: string | null;

  /** Whether the caller may edit this row (its creator, staff or admin). */
  @ApiProperty({ example: true, readOnly: true })
  can_edit: boolean;

  @ApiProperty({ example: 3, readOnly: true, nullable: true, type: 'integer' })
  created_by: number | null;
}

/** Body of PATCH /api/platforms/{id}/: the fields sent replace the stored ones (`label` cannot be cleared). */
@ApiSchema({ name: 'PlatformPatch' })
@IgnoresReadOnlyFields('id', 'can_edit', 'created_by')
export class PlatformPatchDto extends PartialType(PlatformInputDto) {}

export class PlatformResponse {
  data: PlatformDto;
}

/** Needs `platformType` loaded. */
export function toPlatformDto(platform: Platform, user: AuthenticatedUser | undefined): PlatformDto {
  return {
    id: platform.id,
    label: platform.label,
    platform_type: platform.platformType?.label ?? null,
    description: platform.description,
    can_edit: canEditAgent(platform, user),
    created_by: platform.createdBy,
  };
}

/** A launch platform as read: GET and PATCH /api/launch-platforms/{id}/. */
@ApiSchema({ name: 'LaunchPlatform' })
export class LaunchPlatformDto {
  @ApiProperty({ type: 'integer', example: 2, readOnly: true })
  id: number;

  @ApiProperty({ example: 'ROV Jason', maxLength: 255 })
  label: string;

  /** A launch-type label (GET /api/launch-types/). */
  @ApiProperty({ example: 'ROV', nullable: true, type: String })
  launch_type: string | null;

  /** Whether the caller may edit this row (its creator, staff or admin). */
  @ApiProperty({ example: true, readOnly: true })
  can_edit: boolean;

  @ApiProperty({ example: 3, readOnly: true, nullable: true, type: 'integer' })
  created_by: number | null;
}

/** Body of PATCH /api/launch-platforms/{id}/: the fields sent replace the stored ones (`label` cannot be cleared). */
@ApiSchema({ name: 'LaunchPlatformPatch' })
@IgnoresReadOnlyFields('id', 'can_edit', 'created_by')
export class LaunchPlatformPatchDto extends PartialType(LaunchPlatformInputDto) {}

export class LaunchPlatformResponse {
  data: LaunchPlatformDto;
}

/** Needs `launchType` loaded. */
export function toLaunchPlatformDto(platform: LaunchPlatform, user: AuthenticatedUser | undefined): LaunchPlatformDto {
  return {
    id: platform.id,
    label: platform.label,
    launch_type: platform.launchType?.label ?? null,
    can_edit: canEditAgent(platform, user),
    created_by: platform.createdBy,
  };
}
