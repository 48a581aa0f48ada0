import { ApiProperty } from '@nestjs/swagger';
import { JOB_STATUSES, JOB_TYPES } from '../background-job.entity';
import { JOB_MESSAGE_MAX_CHARS } from '../job-message';

export class BackgroundJobDto {
  @ApiProperty({ format: 'uuid', example: '0b6f6c3e-3f7c-4a2e-9d8e-2f5a1c0d9e11' })
  id: string;

  @ApiProperty({ enum: JOB_TYPES, example: 'batch_registration' })
  job_type: string;

  @ApiProperty({ enum: JOB_STATUSES, example: 'processing' })
  status: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { batch_id: 42, filename: 'cores.xlsx' } })
  payload: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, example: null })
  result: Record<string, unknown> | null;

  @ApiProperty({
    nullable: true,
    type: String,
    maxLength: JOB_MESSAGE_MAX_CHARS,
    example: null,
    description: 'Why the job failed; a longer message is cut, ending with a "[truncated: …]" marker.',
  })
  error_message: string | null;

  @ApiProperty({ nullable: true, type: Number, example: 5000 })
  total_count: number | null;

  @ApiProperty({ example: 2500 })
  processed_count: number;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:00:01.000Z' })
  started_at: string | null;

  @ApiProperty({ nullable: true, type: String, example: null })
  finished_at: string | null;
}

export class BackgroundJobResponse {
  data: BackgroundJobDto;
}
