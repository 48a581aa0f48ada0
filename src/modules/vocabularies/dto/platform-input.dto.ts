import { ApiSchema } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { Trim, TrimToNull } from '../../../core/http/trim';

/** A platform by label, created on first use: `{label, platform_type, description}`. */
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
