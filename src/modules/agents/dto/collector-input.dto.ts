import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { compiledPlainToInstance } from '../../../core/http/compiled-plain-to-instance';
import { IsArray, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { MAX_ROW_ID } from '../../../core/http/row-id';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { TrimToNull } from '../../../core/http/trim';
import { AcceptsNumericString } from '../../../core/http/numeric-string';

/** The person in a collector: matched by label (or "fname lname"), trimmed and case-insensitive. */
@ApiSchema({ name: 'CollectorIndividualInput' })
@IgnoresReadOnlyFields('id', 'institutions', 'country', 'can_edit', 'created_by')
export class CollectorIndividualInputDto {
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
  @MaxLength(255)
  individual_uri?: string | null;
}

/** The organisation in a collector: matched by label, trimmed and case-insensitive. */
@ApiSchema({ name: 'CollectorInstitutionInput' })
@IgnoresReadOnlyFields('id', 'institution_type', 'parent_institutions', 'can_edit', 'created_by')
export class CollectorInstitutionInputDto {
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(200)
  label?: string | null;

  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(25)
  ror?: string | null;

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
}

/**
 * Who collected a sample: an existing collector by `id`, or a person and/or an organisation with
 * free-text `description` (created or matched). A bare integer in a collector list means `{id}`.
 */
@ApiSchema({ name: 'CollectorInput' })
export class CollectorInputDto {
  /** An existing collector; when given, the other fields are ignored. */
  @ApiProperty({ type: 'integer', required: false, example: 12 })
  @IsOptional()
  @AcceptsNumericString()
  @IsInt()
  @Min(1)
  @Max(MAX_ROW_ID, { message: 'id must be a collector id' })
  id?: number;

  @IsOptional()
  @TrimToNull()
  @IsString()
  description?: string | null;

  @IsOptional()
  @ValidateNested()
  @Type(() => CollectorIndividualInputDto)
  individual?: CollectorIndividualInputDto | null;

  @IsOptional()
  @ValidateNested()
  @Type(() => CollectorInstitutionInputDto)
  institution?: CollectorInstitutionInputDto | null;
}

/**
 * For a write DTO's collector list: each item is a collector id or a CollectorInput. Ids become
 * `{id}` so every item validates (and reports errors as `collectors.2.individual.label`) the same way.
 *
 *   @IsOptional() @CollectorReferences() collectors?: CollectorInputDto[];
 */
export function CollectorReferences(): PropertyDecorator {
  return applyDecorators(
    IsArray(),
    ValidateNested({ each: true }),
    Type(() => CollectorInputDto),
    Transform(({ value }: { value: unknown }) =>
      Array.isArray(value)
        ? value.map((item: unknown) =>
            typeof item === 'number' ? compiledPlainToInstance(CollectorInputDto, { id: item }) : item,
          )
        : value,
    ),
    ApiProperty({
      type: 'array',
      items: { oneOf: [{ type: 'integer' }, { $ref: getSchemaPath(CollectorInputDto) }] },
      example: [12, { individual: { label: 'Marie Tharp' }, description: 'Chief scientist' }],
    }),
  );
}
