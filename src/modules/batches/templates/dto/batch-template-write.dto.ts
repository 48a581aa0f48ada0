import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiSchema,
  PartialType,
  getSchemaPath,
} from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, ValidateIf } from 'class-validator';
import { MaxLength } from '../../../../core/http/text-length';
import { IgnoresReadOnlyFields } from '../../../../core/http/read-only-fields';
import { Trim, TrimToNull } from '../../../../core/http/trim';
import { CollectorTagDto } from './batch-template.dto';

/** Fields of BatchTemplateRead that a write ignores (clients send back what they fetched). */
export const BATCH_TEMPLATE_READ_ONLY_FIELDS = [
  'id',
  'user_owner',
  'team_owner',
  'created_by',
  'created_date',
  'updated_at',
  'version',
  'initiatives',
  'collector_tags',
];

/** Most entries in one preset list. */
export const MAX_PRESETS = 500;

/** A preset list: strings of at most 255 characters, trimmed, blanks and repeats dropped. */
const PresetList = (example: string[]) =>
  function decorate(target: object, property: string): void {
    ApiPropertyOptional({ type: [String], maxItems: MAX_PRESETS, example })(target, property);
    IsOptional()(target, property);
    IsArray()(target, property);
    ArrayMaxSize(MAX_PRESETS)(target, property);
    IsString({ each: true })(target, property);
    MaxLength(255, { each: true })(target, property);
  };

@ApiSchema({ name: 'BatchTemplateWrite' })
@ApiExtraModels(CollectorTagDto)
@IgnoresReadOnlyFields(...BATCH_TEMPLATE_READ_ONLY_FIELDS)
export class CreateBatchTemplateDto {
  @ApiProperty({ example: 'Cruise AT-42 cores', maxLength: 255 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  label: string;

  /**
   * The registry code the workbook registers under: one the caller may use (their own, or one of
   * a team they edit or manage). A team's code makes the team an owner of the template. Null: the
   * code is given at upload.
   */
  @ApiPropertyOptional({ example: 'IEABC', nullable: true, type: String })
  @IsOptional()
  @TrimToNull()
  @ValidateIf((_object, value) => value !== null)
  @IsString()
  @MaxLength(32)
  registry_code?: string | null;

  /**
   * Id of a leaf object type (also accepted: its leaf label, or the ObjectType object a read
   * returns). Null: each row names its own object type.
   */
  @ApiPropertyOptional({ oneOf: [{ type: 'integer', nullable: true }, { type: 'string' }], example: 21 })
  @IsOptional()
  object_type?: unknown;

  @ApiPropertyOptional({ example: false, default: false })
  @ValidateIf((_object, value) => value !== undefined)
  @IsBoolean()
  is_archived?: boolean;

  /** Keys of optional columns to include (see the batch field catalog); unknown keys are refused. */
  @ApiPropertyOptional({ type: [String], example: ['general_material_type', 'country', 'platform_label'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  selected_fields?: string[] | null;

  /** Cruises and field programs offered; read back as `initiatives`. */
  @PresetList(['AT-42'])
  cruise_field_prgrms?: string[] | null;

  /** Platform names offered in the Platform Name column. */
  @PresetList(['R/V Atlantis'])
  platforms?: string[] | null;

  /** Launch platform names offered in the Launch Platform Name column. */
  @PresetList(['Alvin'])
  launch_platforms?: string[] | null;

  /** Archive names offered in the Current Archive column. */
  @PresetList(['Lamont-Doherty Core Repository'])
  current_archives?: string[] | null;

  /** Archive names offered in the Original Archive column. */
  @PresetList([])
  original_archives?: string[] | null;

  /** Collectors offered in the Collector column: names, or `{label, description}`; read back as `collector_tags`. */
  @ApiPropertyOptional({
    type: 'array',
    maxItems: MAX_PRESETS,
    items: { oneOf: [{ type: 'string' }, { $ref: getSchemaPath(CollectorTagDto) }] },
    example: ['Jane Doe', { label: 'John Roe', description: 'Deck technician' }],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PRESETS)
  collectors?: unknown[] | null;
}

@ApiSchema({ name: 'PatchedBatchTemplateWrite' })
export class UpdateBatchTemplateDto extends PartialType(CreateBatchTemplateDto) {}
