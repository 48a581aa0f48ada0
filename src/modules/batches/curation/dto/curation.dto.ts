import { ApiProperty } from '@nestjs/swagger';
import { BatchHistoryDto } from '../../dto/batch.dto';
import { CURATION_ACTIONS } from '../curation-event.entity';

export class SharedFieldDto {
  @ApiProperty({ example: 'country' })
  key: string;
  /** The column label of the template workbook. */
  @ApiProperty({ example: 'Country' })
  label: string;
  @ApiProperty({ example: 'US' })
  value: string;
}

export class CurationColumnDto {
  @ApiProperty({ example: 'latitude' })
  key: string;
  @ApiProperty({ example: 'Latitude (WGS84)' })
  label: string;
}

export class CurationPaginationDto {
  @ApiProperty({ type: 'integer', example: 1 })
  current_page: number;
  @ApiProperty({ type: 'integer', example: 50 })
  total_pages: number;
  @ApiProperty({ type: 'integer', example: 100 })
  page_size: number;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'https://registry.example.org/api/batches/42/curation/?page=2',
  })
  next: string | null;
  @ApiProperty({ nullable: true, type: String, example: null })
  previous: string | null;
}

export class StoreStatusCountsDto {
  @ApiProperty({ type: 'integer', example: 0 })
  draft: number;
  @ApiProperty({ name: 'pending-review', type: 'integer', example: 5000 })
  'pending-review': number;
  @ApiProperty({ type: 'integer', example: 0 })
  published: number;
}

export class SampleFeedbackEntryDto {
  @ApiProperty({ example: '10.5072/IEABC0001' })
  igsn: string;
  @ApiProperty({ example: 'AT42-01' })
  name: string;
  @ApiProperty({ example: 'Latitude and longitude look swapped.' })
  comment: string;
}

export class BatchFeedbackDto {
  @ApiProperty({ type: 'integer', example: 7 })
  id: number;
  @ApiProperty({ nullable: true, type: 'integer', example: 2 })
  author_id: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'Curator Name' })
  author_name: string | null;
  @ApiProperty({ example: 'Please add the core diameter to every sample.' })
  general_feedback: string;
  sample_feedback: SampleFeedbackEntryDto[];
  @ApiProperty({ example: '2026-11-22T10:05:00.000Z' })
  created_at: string;
}

/**
 * The specification's five members (batch, shared_fields, columns, samples, sample_count) plus
 * pagination of `samples`, sample counts per store state and the batch's most recent feedback.
 */
export class CurationDetail {
  batch: BatchHistoryDto;
  /** Fields with one value on every sample of the batch, in workbook column order. */
  shared_fields: SharedFieldDto[];
  /** Fields whose value differs between samples (some may be empty), in workbook column order. */
  columns: CurationColumnDto[];
  @ApiProperty({
    description:
      'One map per sample of this page, in registration order: `igsn` (DOI form) and `name` always, then ' +
      'every key of `columns` (null when the sample has no value).',
    type: 'array',
    items: { type: 'object', additionalProperties: { type: 'string', nullable: true } },
    example: [
      { igsn: '10.5072/IEABC0001', name: 'AT42-01', latitude: '40.0001', sampling_start_date: null },
      {
        igsn: '10.5072/IEABC0002',
        name: 'AT42-02',
        latitude: '40.0002',
        sampling_start_date: '2026-05-01T00:00:00.000Z',
      },
    ],
  })
  samples: Record<string, string | null>[];
  /** All samples of the batch the caller may see (deactivated ones are gone), not only this page. */
  @ApiProperty({ type: 'integer', example: 5000 })
  sample_count: number;
  /** Paging of `samples` (`?page=`, `?page_size=`: default 100, maximum 1000). */
  pagination: CurationPaginationDto;
  store_status_counts: StoreStatusCountsDto;
  /** The 20 most recent feedback entries on this batch, newest first. */
  feedback: BatchFeedbackDto[];
}

export class CurationDetailResponse {
  data: CurationDetail;
}

export class BatchTransitionResult {
  @ApiProperty({
    type: 'integer',
    example: 5000,
    description: '0 when there was nothing to change (the call is idempotent)',
  })
  updated_sample_count: number;
  batch: BatchHistoryDto;
}

export class BatchTransitionResponse {
  data: BatchTransitionResult;
}

export class BatchDeactivationResult {
  @ApiProperty({ type: 'integer', example: 5000, description: '0 when every sample was already deactivated' })
  deactivated_sample_count: number;
  batch: BatchHistoryDto;
}

export class BatchDeactivationResponse {
  data: BatchDeactivationResult;
}

export class FeedbackRecorded {
  @ApiProperty({ example: 'Feedback on batch 42 recorded.' })
  message: string;
}

export class FeedbackRecordedResponse {
  data: FeedbackRecorded;
}

export class CurationEventDto {
  @ApiProperty({ type: 'integer', example: 12 })
  id: number;
  @ApiProperty({ enum: CURATION_ACTIONS, example: 'accept' })
  action: string;
  @ApiProperty({ nullable: true, type: 'integer', example: 2 })
  actor_id: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'Curator Name' })
  actor_name: string | null;
  /** The store state(s) the samples left, e.g. `pending-review` or `draft, published`; null for feedback. */
  @ApiProperty({ nullable: true, type: String, example: 'pending-review' })
  from_state: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'published' })
  to_state: string | null;
  /** Samples changed; for feedback, the number of per-sample comments. */
  @ApiProperty({ type: 'integer', example: 5000 })
  affected_count: number;
  /** The deactivation reason. */
  @ApiProperty({ nullable: true, type: String, example: null })
  reason: string | null;
  /** The deactivation comment, or the general feedback. */
  @ApiProperty({ nullable: true, type: String, example: null })
  comment: string | null;
  @ApiProperty({ example: '2026-11-22T10:10:00.000Z' })
  created_at: string;
}

export class CurationEventListResponse {
  @ApiProperty({ type: 'integer', example: 3 })
  count: number;
  @ApiProperty({ nullable: true, type: String })
  next: string | null;
  @ApiProperty({ nullable: true, type: String })
  previous: string | null;
  @ApiProperty({ type: 'integer', example: 1 })
  current_page: number;
  @ApiProperty({ type: 'integer', example: 1 })
  total_pages: number;
  @ApiProperty({ type: 'integer', example: 25 })
  page_size: number;
  data: CurationEventDto[];
}
