import { ApiProperty, ApiSchema, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, Max, Min } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { MAX_ROW_ID } from '../../../core/http/row-id';
import type { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { Trim, TrimToNull } from '../../../core/http/trim';
import { canEditAgent } from '../../vocabularies/common/agent-edit.policy';
import { Archive } from '../archive.entity';
import { InstitutionDto, toInstitutionDto } from './institution.dto';

export const ARCHIVE_READ_ONLY_FIELDS = ['id', 'can_edit', 'created_by'];

@ApiSchema({ name: 'Archive' })
export class ArchiveDto {
  @ApiProperty({ type: 'integer', example: 4, readOnly: true })
  id: number;

  @ApiProperty({ example: 'OSU Marine and Geology Repository', maxLength: 200 })
  label: string;

  @ApiProperty({ example: 'OSU-MGR', maxLength: 200, nullable: true, type: String })
  alt_label: string | null;

  @ApiProperty({ example: null, nullable: true, type: String })
  description: string | null;

  /** The country's label. */
  @ApiProperty({ example: 'United States', readOnly: true, nullable: true, type: String })
  country: string | null;

  @ApiProperty({ example: 'Oregon', maxLength: 255, nullable: true, type: String })
  country_subdivision: string | null;

  @ApiProperty({ example: 'Corvallis', maxLength: 255, nullable: true, type: String })
  city: string | null;

  @ApiProperty({ example: 'https://osu-mgr.org', maxLength: 200, nullable: true, type: String })
  url: string | null;

  @ApiProperty({ example: null, maxLength: 36, nullable: true, type: String })
  uri: string | null;

  @ApiProperty({ type: () => InstitutionDto, readOnly: true, nullable: true })
  parent_institution: InstitutionDto | null;

  /** Whether the caller may edit this row (its creator, staff or admin). */
  @ApiProperty({ example: true, readOnly: true })
  can_edit: boolean;

  @ApiProperty({ example: 3, readOnly: true, nullable: true, type: 'integer' })
  created_by: number | null;
}

/** Body of POST /api/archives/. Read-only fields of Archive sent along are ignored. */
@ApiSchema({ name: 'ArchiveWrite' })
@IgnoresReadOnlyFields(...ARCHIVE_READ_ONLY_FIELDS)
export class ArchiveWriteDto {
  /** Unique, compared trimmed and case-insensitively. */
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  label: string;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(200)
  alt_label?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  description?: string | null;

  /** ISO 3166-1 alpha-2 code or country name, case-insensitive. */
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  country?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  country_subdivision?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  city?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(200)
  url?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(36)
  uri?: string | null;

  /** Id of an existing institution (an Institution object sent back from a read counts as its id). */
  @ApiProperty({ type: 'integer', required: false, nullable: true, example: 12 })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    value !== null && typeof value === 'object' && 'id' in value ? value.id : value,
  )
  @IsInt()
  @Min(1)
  @Max(MAX_ROW_ID, { message: 'parent_institution must be an institution id' })
  parent_institution?: number | null;
}

/** Body of PATCH /api/archives/{id}/: the fields sent replace the stored ones (`label` cannot be cleared). */
@ApiSchema({ name: 'ArchivePatch' })
@IgnoresReadOnlyFields(...ARCHIVE_READ_ONLY_FIELDS)
export class ArchivePatchDto extends PartialType(ArchiveWriteDto) {}

/**
 * An archive named inline in a sample write (`current_archive`, `original_archive`): matched by
 * label (trimmed, case-insensitive), created with these fields when new.
 */
@ApiSchema({ name: 'ArchiveInput' })
@IgnoresReadOnlyFields(...ARCHIVE_READ_ONLY_FIELDS, 'parent_institution')
export class ArchiveInputDto {
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  label: string;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(200)
  alt_label?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  city?: string | null;

  /** ISO 3166-1 alpha-2 code or country name, case-insensitive. */
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  country?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  description?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(200)
  url?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(25)
  uri?: string | null;
}

export class ArchiveResponse {
  data: ArchiveDto;
}

export class ArchiveListResponse {
  data: ArchiveDto[];
}

/** Needs `country` and `parentInstitution` (with its `country` and `parentInstitutions`) loaded. */
export function toArchiveDto(archive: Archive, user: AuthenticatedUser | undefined): ArchiveDto {
  return {
    id: archive.id,
    label: archive.label,
    alt_label: archive.altLabel,
    description: archive.description,
    country: archive.country?.label ?? null,
    country_subdivision: archive.countrySubdivision,
    city: archive.city,
    url: archive.url,
    uri: archive.uri,
    parent_institution: archive.parentInstitution ? toInstitutionDto(archive.parentInstitution, user) : null,
    can_edit: canEditAgent(archive, user),
    created_by: archive.createdBy,
  };
}
