import { MAX_ROW_ID } from '../../../core/http/row-id';
import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { JOB_STATUSES } from '../../background-jobs/background-job.entity';
import { SampleExportRequestDto } from '../../exports/dto/sample-export.dto';
import { LABEL_LAYOUT_NAMES } from '../label-layouts';
import { DEFAULT_LABEL_FIELDS, LABEL_FIELDS, MAX_LABEL_FIELDS } from '../label-fields';

/**
 * Which samples get a label — the search parameters of GET /api/samples/ (as for an export), or
 * `batch_id` (the batch's samples the caller may see), not both — on which layout, with which
 * extra fields.
 */
export class LabelSheetRequestDto extends OmitType(SampleExportRequestDto, ['format'] as const) {
  /** A batch: its samples that the caller may see, instead of a search. */
  @ApiPropertyOptional({ example: 42 })
  @IsOptional()
  @IsInt({ message: 'batch_id must be a whole number' })
  @Min(1)
  @Max(MAX_ROW_ID)
  batch_id?: number;

  /** The sheet or roll to print on. */
  @ApiPropertyOptional({ enum: LABEL_LAYOUT_NAMES, default: 'a4-3x7' })
  @IsOptional()
  @IsIn(LABEL_LAYOUT_NAMES, { message: `layout must be one of ${LABEL_LAYOUT_NAMES.join(', ')}` })
  layout?: string;

  /** Up to three fields printed under the name, as `Header: value` (keys of the CSV export's columns). */
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_LABEL_FIELDS,
    example: DEFAULT_LABEL_FIELDS,
    description: `Default ${DEFAULT_LABEL_FIELDS.join(', ')}. One of: ${LABEL_FIELDS.join(', ')}.`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABEL_FIELDS)
  @ArrayUnique()
  @IsIn(LABEL_FIELDS, { each: true, message: 'each field must be a sample field (a column of the CSV export)' })
  fields?: string[];
}

export class LabelSheetQueued {
  /** Poll GET /api/jobs/{job_id}/; once completed, GET /api/jobs/{job_id}/download/ serves the PDF. */
  @ApiProperty({ format: 'uuid', example: '0b6f6c3e-3f7c-4a2e-9d8e-2f5a1c0d9e11' })
  job_id: string;

  @ApiProperty({ enum: JOB_STATUSES, example: 'pending' })
  status: string;

  /** How many labels the sheet will hold (the samples found when it was asked for). */
  @ApiProperty({ example: 21 })
  sample_count: number;
}

export class LabelSheetQueuedResponse {
  data: LabelSheetQueued;
}
