import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** What a person asks a curator for: upload permission ("API access") or a registry code. */
export const ACCOUNT_REQUEST_KINDS = ['upload_permission', 'registry_code'] as const;
export type AccountRequestKind = (typeof ACCOUNT_REQUEST_KINDS)[number];

export const ACCOUNT_REQUEST_STATUSES = ['pending', 'approved', 'refused'] as const;
export type AccountRequestStatus = (typeof ACCOUNT_REQUEST_STATUSES)[number];

/**
 * One request a curator decides. A user has at most one pending upload-permission request, and a
 * code at most one pending request (partial unique indexes, migration PeopleAndRequests); a
 * decided request keeps who decided, when and what they said.
 */
@Entity('account_request')
export class AccountRequest {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 20 })
  kind: AccountRequestKind;

  @Column({ type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  status: AccountRequestStatus;

  @Column({ type: 'text' })
  reason: string;

  /** The registry code asked for (registry_code requests only). */
  @Column({ type: 'varchar', length: 5, nullable: true })
  code: string | null;

  /** The team the code is asked for; null: for the requester. */
  @Column({ type: 'integer', nullable: true })
  teamId: number | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  @Column({ type: 'integer', nullable: true })
  decidedBy: number | null;

  @Column({ type: 'text', nullable: true })
  decisionMessage: string | null;
}
