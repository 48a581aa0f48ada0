import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES, NOTIFICATION_CHANNELS, NOTIFICATION_KINDS } from '../notification.entity';

export class NotificationDto {
  @ApiProperty({ type: 'integer', example: 17 })
  id: number;

  @ApiProperty({ enum: NOTIFICATION_KINDS, example: 'batch_feedback' })
  kind: string;

  @ApiProperty({ example: 'Curator feedback on batch 42 (cores-2026.xlsx)' })
  subject: string;

  /** What the notification is about; for `batch_feedback`: batch_id, filename, feedback_id and the feedback. */
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      batch_id: 42,
      filename: 'cores-2026.xlsx',
      feedback_id: 7,
      general_feedback: 'Please add the core diameter.',
      sample_feedback: [{ igsn: '10.5072/IEABC0001', name: 'AT42-01', comment: 'Latitude looks swapped.' }],
    },
  })
  body: Record<string, unknown>;

  /** The channel the user's notification preferences chose. */
  @ApiProperty({ enum: NOTIFICATION_CHANNELS, example: 'in_app' })
  channel: string;

  /** `pending` while an e-mail waits in the outbox; in-app notifications are delivered when written. */
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'delivered' })
  delivery_status: string;

  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T10:05:00.000Z' })
  delivered_at: string | null;

  @ApiProperty({ example: '2026-11-22T10:05:00.000Z' })
  created_at: string;

  @ApiProperty({ nullable: true, type: String, example: null })
  read_at: string | null;
}

export class NotificationResponse {
  data: NotificationDto;
}

export class NotificationListResponse {
  @ApiProperty({ type: 'integer', example: 1 })
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
  data: NotificationDto[];
}
