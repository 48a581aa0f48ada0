import { ApiProperty, ApiSchema, PartialType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import type { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { TrimToNull } from '../../../core/http/trim';
import { canEditAgent } from '../../vocabularies/common/agent-edit.policy';
import { Individual } from '../individual.entity';
import { InstitutionDto, toInstitutionDto } from './institution.dto';

export const INDIVIDUAL_READ_ONLY_FIELDS = ['id', 'institutions', 'can_edit', 'created_by'];

@ApiSchema({ name: 'Individual' })
export class IndividualDto {
  @ApiProperty({ type: 'integer', example: 31, readOnly: true })
  id: number;

  @ApiProperty({ example: 'Marie Tharp', maxLength: 200, nullable: true, type: String })
  label: string | null;

  @ApiProperty({ example: 'Marie', maxLength: 100, nullable: true, type: String })
  fname: string | null;

  @ApiProperty({ example: 'Tharp', maxLength: 100, nullable: true, type: String })
  lname: string | null;

  @ApiProperty({ example: null, maxLength: 100, nullable: true, type: String })
  alt_label: string | null;

  @ApiProperty({ example: null, nullable: true, type: String })
  description: string | null;

  /** Contact details (address, email, phone, fax) are shown only to callers who may edit the row. */
  @ApiProperty({ example: null, maxLength: 500, nullable: true, type: String })
  address: string | null;

  @ApiProperty({ example: 'marie@example.org', maxLength: 255, nullable: true, type: String })
  email: string | null;

  @ApiProperty({ example: null, maxLength: 255, nullable: true, type: String })
  phone: string | null;

  @ApiProperty({ example: null, maxLength: 255, nullable: true, type: String })
  fax: string | null;

  /** A URI identifying the person, typically an ORCID iD URL. */
  @ApiProperty({ example: 'https://orcid.org/0000-0002-1825-0097', maxLength: 255, nullable: true, type: String })
  individual_uri: string | null;

  @ApiProperty({ type: () => [InstitutionDto], readOnly: true })
  institutions: InstitutionDto[];

  @ApiProperty({ example: 'Lamont Geological Observatory', maxLength: 255, nullable: true, type: String })
  institution_detail: string | null;

  /** The country's label. */
  @ApiProperty({ example: 'United States', readOnly: true, nullable: true, type: String })
  country: string | null;

  /** Whether the caller may edit this row (its creator, staff or admin). */
  @ApiProperty({ example: true, readOnly: true })
  can_edit: boolean;

  @ApiProperty({ example: 3, readOnly: true, nullable: true, type: 'integer' })
  created_by: number | null;
}

/**
 * Body of POST /api/individuals/: a label, or fname and lname (the label is then "fname lname").
 * Read-only fields of Individual sent along are ignored.
 */
@ApiSchema({ name: 'IndividualWrite' })
@IgnoresReadOnlyFields(...INDIVIDUAL_READ_ONLY_FIELDS)
export class IndividualWriteDto {
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(200)
  label?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(100)
  fname?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(100)
  lname?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(100)
  alt_label?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  description?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(500)
  address?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  email?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  phone?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  fax?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  individual_uri?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  institution_detail?: string | null;

  /** ISO 3166-1 alpha-2 code or country name, case-insensitive. */
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(255)
  country?: string | null;
}

/** Body of PATCH /api/individuals/{id}/: the fields sent replace the stored ones. */
@ApiSchema({ name: 'IndividualPatch' })
@IgnoresReadOnlyFields(...INDIVIDUAL_READ_ONLY_FIELDS)
export class IndividualPatchDto extends PartialType(IndividualWriteDto) {}

export class IndividualResponse {
  data: IndividualDto;
}

export class IndividualListResponse {
  data: IndividualDto[];
}

/** Needs `country` and `institutions` (with their `country` and `parentInstitutions`) loaded. */
export function toIndividualDto(individual: Individual, user: AuthenticatedUser | undefined): IndividualDto {
  const canEdit = canEditAgent(individual, user);
  // People's contact details are not public: only those who may edit the row see them.
  const contact = (value: string | null) => (canEdit ? value : null);
  return {
    id: individual.id,
    label: individual.label,
    fname: individual.fname,
    lname: individual.lname,
    alt_label: individual.altLabel,
    description: individual.description,
    address: contact(individual.address),
    email: contact(individual.email),
    phone: contact(individual.phone),
    fax: contact(individual.fax),
    individual_uri: individual.individualUri,
    institutions: (individual.institutions ?? []).map((institution) => toInstitutionDto(institution, user)),
    institution_detail: individual.institutionDetail,
    country: individual.country?.label ?? null,
    can_edit: canEdit,
    created_by: individual.createdBy,
  };
}
