import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { applyDecorators } from '@nestjs/common';
import { IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { MaxLength } from '../../../core/http/text-length';
import { JOB_STATUSES } from '../../background-jobs/background-job.entity';
import { SEARCH_SCOPES } from '../../samples';
import { SAMPLE_FILTER_DOCS, SampleFilterName } from '../../samples';
import { EXPORT_FORMATS } from '../export-formats';

/** An optional filter of the search, as documented there; its meaning is checked by the search itself. */
const SearchFilter = (name: SampleFilterName): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional(SAMPLE_FILTER_DOCS[name]),
    IsOptional(),
    IsString(),
    MaxLength(SAMPLE_FILTER_DOCS[name].maxLength),
  );

/**
 * What to export: the search parameters of GET /api/samples/ (same meaning, same validation, same
 * visibility) and the file format. Sent as a JSON body or as a query string (the search URL's
 * parameters can be reused as they are), not both for the same parameter. There is no paging: an
 * export holds every match.
 */
export class SampleExportRequestDto {
  /** Substring of the IGSN, the sample name or one of its other names. */
  @ApiPropertyOptional({ example: 'basalt' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  q?: string;

  /** Substring of the sample name. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  name?: string;

  /** Substring of the IGSN. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  igsn?: string;

  /** Leaf label(s) of object types, comma-separated. */
  @ApiPropertyOptional({ example: 'Core,Dredge' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  object_type?: string;

  /** ISO 3166-1 alpha-2 code(s), comma-separated. */
  @ApiPropertyOptional({ example: 'IE,GB' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  country?: string;

  @SearchFilter('registry_code')
  registry_code?: string;

  @SearchFilter('external_sample_id')
  external_sample_id?: string;

  @SearchFilter('parent')
  parent?: string;

  @SearchFilter('collector')
  collector?: string;

  @SearchFilter('bbox')
  bbox?: string;

  @SearchFilter('sampling_date_from')
  sampling_date_from?: string;

  @SearchFilter('sampling_date_to')
  sampling_date_to?: string;

  @SearchFilter('created_from')
  created_from?: string;

  @SearchFilter('created_to')
  created_to?: string;

  @SearchFilter('metadata_store_status')
  metadata_store_status?: string;

  /** Whose samples: as in the search; the default for an export (which needs a token) is `personal`. */
  @ApiPropertyOptional({ enum: SEARCH_SCOPES, default: 'personal' })
  @IsOptional()
  @IsString()
  scope?: string;

  /** Only drafts (true) or only non-drafts (false): a JSON boolean, or the text true/false. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'is_draft must be true or false' })
  is_draft?: boolean;

  /** The file: `xlsx` (re-uploadable as a batch) or `csv` (every field). */
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'xlsx' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsIn(EXPORT_FORMATS, { message: `format must be one of ${EXPORT_FORMATS.join(', ')}` })
  format?: string;
}

export class SampleExportQueued {
  /** Poll GET /api/jobs/{job_id}/; once completed, GET /api/jobs/{job_id}/download/ serves the file. */
  @ApiProperty({ format: 'uuid', example: '0b6f6c3e-3f7c-4a2e-9d8e-2f5a1c0d9e11' })
  job_id: string;

  @ApiProperty({ enum: JOB_STATUSES, example: 'pending' })
  status: string;
}

export class SampleExportQueuedResponse {
  data: SampleExportQueued;
}
