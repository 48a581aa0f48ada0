import { ApiProperty, ApiSchema, PartialType } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import type { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { Trim, TrimToNull } from '../../../core/http/trim';
import { canEditAgent } from '../../vocabularies/common/agent-edit.policy';
import { Institution } from '../institution.entity';

export const INSTITUTION_READ_ONLY_FIELDS = ['id', 'institution_type', 'parent_institutions', 'can_edit', 'created_by'];

/** A parent institution, as listed in `parent_institutions`. */
@ApiSchema({ name: 'InstitutionSummary' })
export class InstitutionSummaryDto {
  @ApiProperty({ type: 'integer', example: 7 })
  id: number;

  @ApiProperty({ example: 'University of Example' })
  label: string;
}

@ApiSchema({ name: 'Institution' })
export class InstitutionDto {
  @ApiProperty({ type: 'integer', example: 12, readOnly: true })
  id: number;

  @ApiProperty({ example: 'institution', readOnly: true })
  institution_type: string;

  @ApiProperty({ example: 'Lamont-Doherty Earth Observatory', maxLength: 200 })
  label: string;

  @ApiProperty({ example: 'LDEO', maxLength: 200, nullable: true, type: String })
  alt_label: string | null;

  @ApiProperty({ example: null, nullable: true, type: String })
  description: string | null;

  /** The country's label. */
  @ApiProperty({ example: 'United States', readOnly: true, nullable: true, type: String })
  country: string | null;

  @ApiProperty({ example: 'New York', maxLength: 255, nullable: true, type: String })
  country_subdivision: string | null;

  @ApiProperty({ example: 'Palisades', maxLength: 255, nullable: true, type: String })
  city: string | null;

  /** ROR identifier. */
  @ApiProperty({ example: '00hj8s172', maxLength: 25, nullable: true, type: String })
  ror: string | null;

  @ApiProperty({
    type: () => [InstitutionSummaryDto],
    readOnly: true,
    example: [{ id: 7, label: 'Columbia University' }],
  })
  parent_institutions: InstitutionSummaryDto[];

  /** Whether the caller may edit this row (its creator, staff or admin). */
  @ApiProperty({ example: false, readOnly: true })
  can_edit: boolean;

  /** The user who created the row; null for rows the system created. */
  @ApiProperty({ example: 3, readOnly: true, nullable: true, type: 'integer' })
  created_by: number | null;
}

/** Body of POST /api/institutions/. Read-only fields of Institution sent along are ignored. */
@ApiSchema({ name: 'InstitutionWrite' })
@IgnoresReadOnlyFields(...INSTITUTION_READ_ONLY_FIELDS)
export class InstitutionWriteDto {
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
  @MaxLength(25)
  ror?: string | null;
}

/** Body of PATCH /api/institutions/{id}/: the fields sent replace the stored ones (`label` cannot be cleared). */
@ApiSchema({ name: 'InstitutionPatch' })
@IgnoresReadOnlyFields(...INSTITUTION_READ_ONLY_FIELDS)
export class InstitutionPatchDto extends PartialType(InstitutionWriteDto) {}

export class InstitutionResponse {
  data: InstitutionDto;
}

export class InstitutionListResponse {
  data: InstitutionDto[];
}

/** `institution.country` and `institution.parentInstitutions` must be loaded. */
export function toInstitutionDto(institution: Institution, user: AuthenticatedUser | undefined): InstitutionDto {
  return {
    id: institution.id,
    institution_type: institution.institutionType,
    label: institution.label,
    alt_label: institution.altLabel,
    description: institution.description,
    country: institution.country?.label ?? null,
    country_subdivision: institution.countrySubdivision,
    city: institution.city,
    ror: institution.ror,
    parent_institutions: (institution.parentInstitutions ?? []).map((parent) => ({
      id: parent.id,
      label: parent.label,
    })),
    can_edit: canEditAgent(institution, user),
    created_by: institution.createdBy,
  };
}
