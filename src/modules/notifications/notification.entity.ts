import { Column, Entity, Generated, PrimaryColumn } from 'typeorm';

/**
 * `account_request_decided`: a curator approved or refused the user's request (upload permission, a
 * registry code); `ownership_transfer`: a transfer of samples to or from the user changed state.
 */
export const NOTIFICATION_KINDS = ['batch_feedback', 'account_request_decided', 'ownership_transfer'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Where a notification goes: the in-app list only, or also an e-mail a sender delivers. */
export const NOTIFICATION_CHANNELS = ['in_app', 'email'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** `pending`: waiting in the outbox for a sender (e-mail); `delivered`: in-app rows are delivered when written. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const bigintNumber = {
  to: (value: unknown) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** One message for one user: the in-app feed and the outbox an e-mail sender drains. */
@Entity('notification')
export class Notification {
  @PrimaryColumn({ type: 'bigint', transformer: bigintNumber })
  @Generated('increment')
  id: number;

  @Column({ type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 64 })
  kind: NotificationKind;

  @Column({ type: 'varchar', length: 255 })
  subject: string;

  @Column({ type: 'jsonb', default: {} })
  body: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  channel: NotificationChannel;

  @Column({ type: 'varchar', length: 16 })
  deliveryStatus: DeliveryStatus;

  @Column({ type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  readAt: Date | null;
}
