import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { IgnoresReadOnlyFields } from '../../../core/http/read-only-fields';
import { Trim, TrimToNull } from '../../../core/http/trim';
import { RELATED_RESOURCE_TYPES, URI_TYPES } from '../../samples';

/** Fields a fetched related resource has that a write ignores (clients send back what they fetched). */
const READ_ONLY = ['id', 'created_by', 'created_at', 'updated_at', 'can_edit'];

/**
 * The body of POST /api/related-resources/. `related_resource_type` and `uri_type` are matched in
 * any letter case; `uri_type` left out is DOI for a DOI, URL otherwise.
 */
@IgnoresReadOnlyFields(...READ_ONLY)
export class RelatedResourceWriteDto {
  @ApiProperty({ example: 'Smith et al. 2024, geochemistry of the Atlantis dredge', maxLength: 255 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  label: string;

  @ApiProperty({ enum: RELATED_RESOURCE_TYPES, example: 'text' })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(20)
  related_resource_type: string;

  @ApiProperty({ example: 'https://doi.org/10.1594/PANGAEA.123456', maxLength: 2000 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  uri: string;

  @ApiPropertyOptional({ enum: URI_TYPES, example: 'DOI' })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(20)
  uri_type?: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 20000 })
  @IsOptional()
  @TrimToNull()
  @IsString()
  @MaxLength(20000)
  description?: string | null;
}

/** PATCH /api/related-resources/{id}/: the fields sent replace the stored ones. */
export class RelatedResourcePatchDto extends PartialType(RelatedResourceWriteDto) {}

export class RelatedResourceObjectDto {
  @ApiProperty({ example: 7 })
  id: number;
  @ApiProperty({ example: 'Smith et al. 2024, geochemistry of the Atlantis dredge' })
  label: string;
  @ApiProperty({ enum: RELATED_RESOURCE_TYPES, example: 'text' })
  related_resource_type: string;
  @ApiProperty({ example: 'https://doi.org/10.1594/PANGAEA.123456' })
  uri: string;
  @ApiProperty({ enum: URI_TYPES, example: 'DOI' })
  uri_type: string;
  @ApiProperty({ nullable: true, type: String })
  description: string | null;
  /** Id of the user who created it (who may edit it, with staff). */
  @ApiProperty({ nullable: true, type: 'integer', example: 12 })
  created_by: number | null;
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' })
  created_at: string;
  @ApiProperty({ example: '2026-11-26T10:00:00.000Z' })
  updated_at: string;
  @ApiProperty({ example: true })
  can_edit: boolean;
}

export class RelatedResourceResponse {
  @ApiProperty({ type: RelatedResourceObjectDto })
  data: RelatedResourceObjectDto;
}

export class RelatedResourceListResponse {
  @ApiProperty({ example: 1 })
  count: number;
  @ApiProperty({ nullable: true, type: String, example: null })
  next: string | null;
  @ApiProperty({ nullable: true, type: String, example: null })
  previous: string | null;
  @ApiProperty({ example: 1 })
  current_page: number;
  @ApiProperty({ example: 1 })
  total_pages: number;
  @ApiProperty({ example: 25 })
  page_size: number;
  @ApiProperty({ type: [RelatedResourceObjectDto] })
  data: RelatedResourceObjectDto[];
}

/** POST /api/related-resources/{id}/link-samples/: samples by id (number or numeric string) or IGSN. */
export class LinkSamplesDto {
  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }] },
    maxItems: 1000,
    example: [1042, '10.5072/IEABC0002'],
    description: 'Sample ids (`id` of the sample JSON), or IGSNs in any accepted form.',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(1000)
  sample_ids: unknown[];
}

export class LinkedSamplesDto {
  @ApiProperty({ example: 7 })
  id: number;
  /** The samples named, all linked now (those linked before stay linked). */
  @ApiProperty({ type: [Number], example: [1042, 1043] })
  sample_ids: number[];
  /** How many samples the resource is linked to in all. */
  @ApiProperty({ example: 2 })
  sample_count: number;
}

export class LinkedSamplesResponse {
  @ApiProperty({ type: LinkedSamplesDto })
  data: LinkedSamplesDto;
}
