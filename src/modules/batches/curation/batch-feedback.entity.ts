import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One comment on a sample of the batch, as stored (IGSN in its DOI form, name filled in when not given). */
export interface SampleFeedbackEntry {
  igsn: string;
  name: string;
  comment: string;
}

/** What a curator told the batch owner: a general note and comments on individual samples. */
@Entity('batch_feedback')
export class BatchFeedback {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  batchId: number;

  @Column({ type: 'integer', nullable: true })
  authorId: number | null;

  @Column({ type: 'text', default: '' })
  generalFeedback: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  sampleFeedback: SampleFeedbackEntry[];

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
