// Over 400 lines on purpose: CreateSampleDto is the register body, one class of ~90 validated
// fields that the swagger plugin documents and class-validator checks in declaration order. Splitting
// its fields across files (mixins) would change the OpenAPI schema and the order of error messages.
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, PartialType, getSchemaPath } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { compiledPlainToInstance } from '../../../core/http/compiled-plain-to-instance';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { CollectorInputDto, CollectorReferences } from '../../agents/dto/collector-input.dto';
import { ArchiveInputDto } from '../../agents/dto/archive.dto';
import { IsRegistryDate } from '../../../core/http/registry-date';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { AcceptsNumericString } from '../../../core/http/numeric-string';
import { Trim, TrimToNull } from '../../../core/http/trim';
import { LaunchPlatformInputDto, PlatformInputDto } from '../../vocabularies/dto/platform-input.dto';
import { DATE_PRECISIONS, DEACTIVATE_REASONS, LENGTH_UNITS } from '../sample.entity';

/** Longest free text of the description fields. */
export const LONG_TEXT_MAX = 20000;

/** Fields a client gets back from a fetch that a write ignores (clients send back what they fetched). */
export const SAMPLE_READ_ONLY_FIELDS = [
  'id',
  'legacy_sample_type',
  'object_type_path',
  'metadata_store_status',
  'is_deactivated',
  'deactivate_reason',
  'user_owner',
  'team_owner',
  'batch_id',
  'created_at',
  'updated_at',
  'can_edit',
  'doi',
  // SESAR2's names of read-only facts (issue 20).
  'sample_id',
  'registration_date',
  'last_update_date',
  'can_deactivate',
];

const FINITE = { allowNaN: false, allowInfinity: false };
/** A value may be sent as null to clear it. */
const Nullable = () => ValidateIf((_object, value) => value !== null);

/**
 * An optional number: a JSON number or a string holding a decimal number (SESAR2 clients send
 * `"latitude": "38.957178"`), null clears it, within [min, max] when given. Anything else is a 400
 * naming the field.
 */
const OptionalNumber = (range: { min?: number; max?: number; example?: number } = {}): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      nullable: true,
      type: Number,
      description: 'A JSON number; a string holding a decimal number is accepted too.',
      ...(range.min === undefined ? {} : { minimum: range.min }),
      ...(range.max === undefined ? {} : { maximum: range.max }),
      ...(range.example === undefined ? {} : { example: range.example }),
    }),
    IsOptional(),
    AcceptsNumericString(),
    Nullable(),
    IsNumber(FINITE),
    ...(range.min === undefined ? [] : [Min(range.min)]),
    ...(range.max === undefined ? [] : [Max(range.max)]),
  );

/** An optional free-text field: trimmed (blank becomes null), null clears it, at most `maxLength` characters. */
const OptionalText = (maxLength: number, example?: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ nullable: true, type: String, maxLength, ...(example === undefined ? {} : { example }) }),
    IsOptional(),
    TrimToNull(),
    Nullable(),
    IsString(),
    MaxLength(maxLength),
  );

/**
 * A choice from `choices`, or the empty string (the specification's BlankEnum), which means "not
 * given" as null does: it is stored and returned as null.
 */
const BlankableChoice = (choices: readonly string[], example?: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ nullable: true, enum: [...choices, ''], ...(example === undefined ? {} : { example }) }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) => (value === '' ? null : value)),
    Nullable(),
    IsIn(choices),
  );

export class RelatedResourceDto {
  @ApiProperty({ example: 'https://doi.org/10.1594/PANGAEA.123456' })
  @Trim()
  @IsUrl({ require_protocol: true, protocols: ['http', 'https', 'ftp'] }, { message: 'uri must be an http(s) URL' })
  @MaxLength(2000)
  uri: string;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'Geochemistry of this sample' })
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  /** A DataCite relationType, e.g. IsReferencedBy, IsDocumentedBy. */
  @ApiPropertyOptional({ nullable: true, type: String, example: 'IsReferencedBy' })
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(50)
  relation_type?: string | null;
}

/**
 * A related resource object (POST /api/related-resources/) named by its id. The other fields a
 * fetched sample shows for it are ignored, so a client can send back the list it read.
 */
@IgnoresReadOnlyFields('label', 'related_resource_type', 'uri', 'uri_type', 'description', 'relation_type')
export class RelatedResourceRefDto {
  @ApiProperty({
    type: 'integer',
    example: 7,
    description: 'Id of a related resource you created (or any, for staff).',
  })
  @AcceptsNumericString()
  @IsInt()
  @Min(1)
  @Max(2147483647)
  id: number;
}

/**
 * One element of a sample's `related_resources`: an id (number or numeric string) or `{id, …}` names
 * a related resource object; any other object is an inline link (uri, description, relation_type).
 */
function relatedResourceElement(item: unknown): unknown {
  if (typeof item === 'number' || typeof item === 'string')
    return compiledPlainToInstance(RelatedResourceRefDto, { id: item });
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  return compiledPlainToInstance<object>(relatedResourceClassOf(item), item);
}

/** An object element names a related resource object when it has an id; otherwise it is an inline link. */
function relatedResourceClassOf(item: object): typeof RelatedResourceRefDto | typeof RelatedResourceDto {
  return 'id' in item ? RelatedResourceRefDto : RelatedResourceDto;
}

export function isRelatedResourceRef(item: RelatedResourceDto | RelatedResourceRefDto): item is RelatedResourceRefDto {
  return item instanceof RelatedResourceRefDto;
}

/**
 * The register body (POST /api/samples/). Publishing needs name, object_type, latitude and
 * longitude; a draft (`is_draft: true`) may omit the coordinates.
 */
@IgnoresReadOnlyFields(...SAMPLE_READ_ONLY_FIELDS)
export class CreateSampleDto {
  /** Bare suffix (`IEABC0001`) or DOI form (`10.5072/IEABC0001`); omitted, one is minted. */
  @ApiPropertyOptional({ example: 'IEABC0001' })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(64)
  igsn?: string;

  /** The registry code to register under; optional when the caller can use exactly one. */
  @ApiPropertyOptional({ example: 'IEABC' })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(5)
  registry_code?: string;

  /** Accepted for clients migrating from the previous API; same as registry_code. */
  @ApiPropertyOptional({ example: 'IEABC', deprecated: true })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(5)
  sesar_code?: string;

  @ApiProperty({ example: 'AT-2024-017' })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  /**
   * The client's own id for the sample: unique among the samples of one owner, so a client whose
   * answer got lost can find its sample (a second registration with it is a 409 naming the IGSN).
   */
  @OptionalText(255, 'FIELD-2024-0017')
  external_sample_id?: string | null;

  /**
   * Leaf label of a current object type, e.g. "Core" (or the full path). Its type and value are
   * checked by the object-type resolver, whose message tells legacy clients sending numeric ids
   * to use the leaf label instead.
   */
  @ApiProperty({ type: String, example: 'Individual sample' })
  @IsNotEmpty()
  object_type: string;

  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  is_draft?: boolean;

  @OptionalText(255, 'Rock')
  general_material_type?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['Igneous>Plutonic'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  material_types?: string[];

  @OptionalText(LONG_TEXT_MAX)
  sample_description?: string | null;

  @OptionalNumber({ min: -90, max: 90, example: 41.5 })
  latitude?: number | null;

  @OptionalNumber({ min: -180, max: 180, example: -72.8 })
  longitude?: number | null;

  @OptionalNumber({ min: -90, max: 90 })
  end_latitude?: number | null;

  @OptionalNumber({ min: -180, max: 180 })
  end_longitude?: number | null;

  /** SESAR2's name for end_latitude (send one of the two, or both with the same value). */
  @OptionalNumber({ min: -90, max: 90 })
  latitude_end?: number | null;

  /** SESAR2's name for end_longitude (send one of the two, or both with the same value). */
  @OptionalNumber({ min: -180, max: 180 })
  longitude_end?: number | null;

  @OptionalNumber({ example: 1250 })
  elevation?: number | null;

  @OptionalNumber()
  elevation_end?: number | null;

  @BlankableChoice(LENGTH_UNITS, 'meters')
  elevation_unit?: (typeof LENGTH_UNITS)[number] | null;

  @OptionalNumber()
  depth_min?: number | null;

  @OptionalNumber()
  depth_max?: number | null;

  @BlankableChoice(LENGTH_UNITS)
  depth_unit?: (typeof LENGTH_UNITS)[number] | null;

  /** ISO 3166-1 alpha-2 code (or the country's label). */
  @OptionalText(255, 'US')
  country?: string | null;

  @OptionalText(255)
  province?: string | null;

  @OptionalText(255)
  county?: string | null;

  @OptionalText(255)
  city?: string | null;

  @OptionalText(255)
  locality?: string | null;

  @OptionalText(LONG_TEXT_MAX)
  location_description?: string | null;

  /** A label of the location-method vocabulary. */
  @OptionalText(255, 'GPS')
  location_method?: string | null;

  @OptionalText(20000)
  purpose?: string | null;

  @OptionalText(255, '10 x 5 cm')
  size?: string | null;

  @OptionalText(255)
  field_name?: string | null;

  /** SESAR2's name for field_name (send one of the two, or both with the same value). */
  @OptionalText(255)
  material_name_verbatim?: string | null;

  @OptionalText(255)
  primary_location_name?: string | null;

  @OptionalText(255)
  primary_location_type?: string | null;

  @OptionalText(255)
  vertical_datum?: string | null;

  @OptionalText(255)
  northing?: string | null;

  @OptionalText(255)
  easting?: string | null;

  @OptionalText(255)
  zone?: string | null;

  @OptionalText(255)
  depth_scale?: string | null;

  @OptionalText(255)
  size_unit?: string | null;

  @OptionalText(255)
  cruise_field_prgrm?: string | null;

  @OptionalText(255)
  current_archive_contact?: string | null;

  @OptionalText(255)
  original_archive_contact?: string | null;

  /** IGSN of the parent sample (it must exist and be visible to the caller). */
  @OptionalText(64, '10.5072/IEABC0001')
  parent_sample?: string | null;

  @OptionalText(255)
  external_parent_name?: string | null;

  @OptionalText(255)
  external_parent_object_type?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['Dredge 7 rock 3'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  other_names?: string[];

  @OptionalNumber()
  numeric_age_min?: number | null;

  @OptionalNumber()
  numeric_age_max?: number | null;

  @OptionalText(20, 'Ma')
  numeric_age_unit?: string | null;

  @OptionalText(255, 'Late Cretaceous')
  geologic_age_verbatim?: string | null;

  @OptionalText(255)
  geologic_unit?: string | null;

  /** A label of the sampling-method vocabulary. */
  @OptionalText(255, 'Dredging')
  sampling_method?: string | null;

  @OptionalText(20000)
  sampling_method_detail?: string | null;

  /**
   * `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYY-MM-DDThh:mm[:ss[.fff]]` with `Z`, `±hh:mm` or no zone
   * (UTC); other ISO 8601 forms (week, ordinal, basic, hour-only, signed years) are refused.
   */
  @ApiPropertyOptional({ nullable: true, type: String, example: '2024-06-01' })
  @IsOptional()
  @Nullable()
  @IsRegistryDate()
  sampling_start_date?: string | null;

  /** The same forms as sampling_start_date. */
  @ApiPropertyOptional({ nullable: true, type: String, example: '2024-06-03' })
  @IsOptional()
  @Nullable()
  @IsRegistryDate()
  sampling_end_date?: string | null;

  @BlankableChoice(DATE_PRECISIONS, 'day')
  sampling_date_precision?: (typeof DATE_PRECISIONS)[number] | null;

  @OptionalText(255, 'Dive 4711')
  launch_label?: string | null;

  @IsOptional()
  @CollectorReferences()
  @ArrayMaxSize(100)
  collectors?: CollectorInputDto[];

  @ApiPropertyOptional({ type: PlatformInputDto, nullable: true })
  @IsOptional()
  @Nullable()
  @ValidateNested()
  @Type(() => PlatformInputDto)
  platform?: PlatformInputDto | null;

  @ApiPropertyOptional({ type: LaunchPlatformInputDto, nullable: true })
  @IsOptional()
  @Nullable()
  @ValidateNested()
  @Type(() => LaunchPlatformInputDto)
  launch_platform?: LaunchPlatformInputDto | null;

  @ApiPropertyOptional({ type: ArchiveInputDto, nullable: true })
  @IsOptional()
  @Nullable()
  @ValidateNested()
  @Type(() => ArchiveInputDto)
  current_archive?: ArchiveInputDto | null;

  @ApiPropertyOptional({ type: ArchiveInputDto, nullable: true })
  @IsOptional()
  @Nullable()
  @ValidateNested()
  @Type(() => ArchiveInputDto)
  original_archive?: ArchiveInputDto | null;

  /** Inline links and ids of related resource objects, mixed; a list sent replaces both kinds. */
  @ApiPropertyOptional({
    type: 'array',
    items: {
      oneOf: [
        { $ref: getSchemaPath(RelatedResourceDto) },
        { $ref: getSchemaPath(RelatedResourceRefDto) },
        { type: 'integer', minimum: 1 },
      ],
    },
    description:
      'Inline links `{uri, description, relation_type}`, and related resource objects named by id (`7`, `"7"` or ' +
      '`{"id": 7}`, as a fetch returns them).',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map(relatedResourceElement) : value))
  @ValidateNested({ each: true })
  related_resources?: (RelatedResourceDto | RelatedResourceRefDto)[];

  /** Embargo: a published sample stays hidden from the public until this date-time. */
  @ApiPropertyOptional({ nullable: true, type: String, example: '2027-01-01T00:00:00Z' })
  @IsOptional()
  @Nullable()
  @IsRegistryDate()
  publish_date?: string | null;
}

/**
 * A transformed CreateSampleDto copied from another thread (a structured clone keeps the data, not
 * the classes) with the classes the writer reads back: the DTO's own, and its related resources'
 * (isRelatedResourceRef tells ids from links by class). Other nested objects stay plain: nothing
 * reads their class.
 */
export function reviveCreateSampleDto(copy: object): CreateSampleDto {
  const dto = Object.setPrototypeOf(copy, CreateSampleDto.prototype) as CreateSampleDto;
  for (const item of dto.related_resources ?? []) {
    if (item !== null && typeof item === 'object') Object.setPrototypeOf(item, relatedResourceClassOf(item).prototype);
  }
  return dto;
}

/** PATCH body: any register field; lists sent replace the stored lists. */
export class UpdateSampleDto extends PartialType(CreateSampleDto) {}

export class DeactivateSampleDto {
  @ApiProperty({ enum: DEACTIVATE_REASONS, example: 'duplicate igsn' })
  @IsIn(DEACTIVATE_REASONS, { message: `reason must be one of: ${DEACTIVATE_REASONS.join('; ')}` })
  reason: (typeof DEACTIVATE_REASONS)[number];

  @OptionalText(5000)
  comment?: string | null;
}

export const SEARCH_SCOPES = ['public', 'personal', 'shared', 'personal_and_shared'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];
