import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ObjectTypeDto } from '../../../vocabularies/dto/vocabulary.dto';

/** A collector offered in the template's Collector column. */
@ApiSchema({ name: 'BatchTemplateCollectorTag' })
export class CollectorTagDto {
  @ApiProperty({ example: 'Jane Doe', maxLength: 200 })
  label: string;

  @ApiProperty({ example: 'Chief scientist, AT-42', nullable: true, type: String })
  description: string | null;
}

@ApiSchema({ name: 'BatchTemplateList' })
export class BatchTemplateListItemDto {
  @ApiProperty({ type: 'integer', example: 12, readOnly: true })
  id: number;

  @ApiProperty({ example: 'Cruise AT-42 cores', maxLength: 255 })
  label: string;

  @ApiProperty({ example: 'IEABC', nullable: true, type: String, readOnly: true })
  registry_code: string | null;

  /** Leaf label of the template's object type; null when each row names its own. */
  @ApiProperty({ example: 'Core', nullable: true, type: String, readOnly: true })
  object_type: string | null;

  /** Name of the user who owns the template. */
  @ApiProperty({ example: 'Jane Doe', nullable: true, type: String, readOnly: true })
  user_owner: string | null;

  /** Name of the team that owns the template (the team owning its registry code), or null. */
  @ApiProperty({ example: 'Lamont Core Lab', nullable: true, type: String, readOnly: true })
  team_owner: string | null;

  /** Id of the user who created the template. */
  @ApiProperty({ type: 'integer', example: 7, nullable: true })
  created_by: number | null;

  @ApiProperty({ example: '2025-01-31T09:15:00.000Z', format: 'date-time' })
  created_date: string;

  @ApiProperty({ example: false })
  is_archived: boolean;
}

export class BatchTemplateListResponse {
  data: BatchTemplateListItemDto[];
}

@ApiSchema({ name: 'BatchTemplateRead' })
export class BatchTemplateReadDto {
  @ApiProperty({ type: 'integer', example: 12, readOnly: true })
  id: number;

  @ApiProperty({ example: 'Cruise AT-42 cores', maxLength: 255 })
  label: string;

  @ApiProperty({ example: 'IEABC', nullable: true, type: String, readOnly: true })
  registry_code: string | null;

  @ApiProperty({ type: ObjectTypeDto, nullable: true, readOnly: true })
  object_type: ObjectTypeDto | null;

  @ApiProperty({ example: 'Jane Doe', nullable: true, type: String, readOnly: true })
  user_owner: string | null;

  @ApiProperty({ example: 'Lamont Core Lab', nullable: true, type: String, readOnly: true })
  team_owner: string | null;

  /** Name of the user who created the template. */
  @ApiProperty({ example: 'Jane Doe', nullable: true, type: String, readOnly: true })
  created_by: string | null;

  @ApiProperty({ example: '2025-01-31T09:15:00.000Z', format: 'date-time' })
  created_date: string;

  @ApiProperty({ example: '2025-02-03T16:40:00.000Z', format: 'date-time', readOnly: true })
  updated_at: string;

  /** Bumped on every update; written into the workbook's Metadata sheet as template_version. */
  @ApiProperty({ type: 'integer', example: 3, readOnly: true })
  version: number;

  @ApiProperty({ example: false })
  is_archived: boolean;

  /** Keys of the optional columns in the workbook (the always-present columns are added anyway). */
  @ApiProperty({ type: [String], example: ['general_material_type', 'country', 'platform_label'], readOnly: true })
  selected_fields: string[];

  /** Cruises and field programs offered (written as `cruise_field_prgrms`). */
  @ApiProperty({ type: [String], example: ['AT-42'], readOnly: true })
  initiatives: string[];

  @ApiProperty({ type: [String], example: ['R/V Atlantis'], readOnly: true })
  platforms: string[];

  @ApiProperty({ type: [String], example: ['Alvin'], readOnly: true })
  launch_platforms: string[];

  @ApiProperty({ type: [String], example: ['Lamont-Doherty Core Repository'], readOnly: true })
  current_archives: string[];

  @ApiProperty({ type: [String], example: [], readOnly: true })
  original_archives: string[];

  /** Collectors offered in the Collector column (written as `collectors`). */
  @ApiProperty({ type: [CollectorTagDto], readOnly: true })
  collector_tags: CollectorTagDto[];
}

export class BatchTemplateResponse {
  data: BatchTemplateReadDto;
}
