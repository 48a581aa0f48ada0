import { ApiProperty } from '@nestjs/swagger';

/** The specification's BatchHistory, plus the job that processes it. */
export class BatchHistoryDto {
  @ApiProperty({ example: 42 })
  id: number;
  @ApiProperty({ example: 'registration' })
  batch_type: string;
  @ApiProperty({ nullable: true, type: String, example: 'IEABC' })
  registry_code: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 5000 })
  sample_count: number | null;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  upload_time: string;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:00:04.000Z' })
  processed_time: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'cores-2026.xlsx' })
  filename: string | null;
  /** The object type when every sample of the batch has the same one. */
  @ApiProperty({ nullable: true, type: String, example: 'Core' })
  object_type: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Marie Tharp' })
  uploaded_by_name: string | null;
  @ApiProperty({ nullable: true, type: String, example: null })
  team_owner_name: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Marie Tharp' })
  owner_name: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 3 })
  user_owner_id: number | null;
  @ApiProperty({ nullable: true, type: Number, example: null })
  team_owner_id: number | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  job_id: string | null;
  /** The processing job's status. */
  @ApiProperty({ nullable: true, type: String, example: 'completed' })
  status: string | null;
  @ApiProperty({ example: false })
  save_as_draft: boolean;
}

export class BatchHistoryResponse {
  data: BatchHistoryDto;
}

export class BatchHistoryListResponse {
  @ApiProperty({ example: 1 })
  count: number;
  @ApiProperty({ nullable: true, type: String })
  next: string | null;
  @ApiProperty({ nullable: true, type: String })
  previous: string | null;
  @ApiProperty({ example: 1 })
  current_page: number;
  @ApiProperty({ example: 1 })
  total_pages: number;
  @ApiProperty({ example: 25 })
  page_size: number;
  data: BatchHistoryDto[];
}

export class BatchQueued {
  @ApiProperty({ format: 'uuid', example: '0b6f6c3e-3f7c-4a2e-9d8e-2f5a1c0d9e11' })
  job_id: string;
  @ApiProperty({ example: 'cores-2026.xlsx' })
  filename: string;
  @ApiProperty({ example: 'pending' })
  status: string;
}

export class BatchQueuedResponse {
  data: BatchQueued;
}

/** Multipart form of POST /api/batches/upload/ (documented; read by hand from the form). */
export class BatchUploadForm {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The filled-in template (.xlsx)' })
  file: unknown;
  @ApiProperty({ required: false, default: false, description: 'Create the samples as drafts (coordinates optional)' })
  save_as_draft?: boolean;
  @ApiProperty({ required: false, type: Number, description: 'The template the workbook was made from' })
  template_id?: number;
  @ApiProperty({ required: false, description: 'Registry code, when the workbook has no Metadata sheet' })
  registry_code?: string;
  @ApiProperty({ required: false, description: 'Object type for every row, when neither Metadata nor a column says' })
  object_type?: string;
  @ApiProperty({
    required: false,
    default: false,
    description:
      'Register a workbook you uploaded before again (otherwise 409 naming the earlier batch, unless that batch failed)',
  })
  allow_duplicate?: boolean;
}
