import { Column, Entity, PrimaryColumn } from 'typeorm';

export const JOB_TYPES = [
  'batch_registration',
  'sample_export',
  'label_sheet',
  'ownership_transfer',
  'sample_reservation',
] as const;
export type JobType = (typeof JOB_TYPES)[number];
export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * The state of a unit of background work, as users read it. The row is the truth; the BullMQ job
 * (same id) only carries the work, and is re-created from this row if Redis loses it.
 */
@Entity('background_job')
export class BackgroundJob {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'varchar', length: 32 })
  jobType: JobType;

  @Column({ type: 'varchar', length: 16 })
  status: JobStatus;

  @Column({ type: 'jsonb', default: {} })
  payload: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  result: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  errorMessage: string | null;

  @Column({ type: 'integer', nullable: true })
  totalCount: number | null;

  @Column({ type: 'integer', default: 0 })
  processedCount: number;

  @Column({ type: 'integer' })
  userId: number;

  @Column({ type: 'uuid', nullable: true })
  resultFileId: string | null;

  @Column({ type: 'boolean', default: false })
  cancelRequested: boolean;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** The client's Idempotency-Key, unique per user: a retried request returns this job. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  idempotencyKey: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
