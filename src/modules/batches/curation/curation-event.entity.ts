import { Column, Entity, Generated, PrimaryColumn } from 'typeorm';

export const CURATION_ACTIONS = ['submit_for_review', 'accept', 'deactivate', 'feedback'] as const;
export type CurationAction = (typeof CURATION_ACTIONS)[number];

const bigintNumber = {
  to: (value: unknown) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * The audit trail of a batch: one row per curation action that changed something — who, when,
 * from which store state to which, how many samples, and the reason or comment given.
 */
@Entity('curation_event')
export class CurationEvent {
  @PrimaryColumn({ type: 'bigint', transformer: bigintNumber })
  @Generated('increment')
  id: number;

  @Column({ type: 'integer' })
  batchId: number;

  @Column({ type: 'integer', nullable: true })
  actorId: number | null;

  @Column({ type: 'varchar', length: 32 })
  action: CurationAction;

  /** The store state(s) the affected samples left, e.g. `draft` or `pending-review, published`. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  fromState: string | null;

  /** `pending-review`, `published`, `deactivated`; null for feedback. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  toState: string | null;

  /** Samples changed (feedback: the number of per-sample comments). */
  @Column({ type: 'integer' })
  affectedCount: number;

  @Column({ type: 'varchar', length: 40, nullable: true })
  reason: string | null;

  @Column({ type: 'text', nullable: true })
  comment: string | null;

  @Column({ type: 'integer', nullable: true })
  feedbackId: number | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
