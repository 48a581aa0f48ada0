import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { EntityManager } from 'typeorm';
import { Clock } from '../../core/clock';
import { ApiError } from '../../core/http/api-error';
import { PageRequest, Paginated, paginate } from '../../core/http/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { NotificationDto } from './dto/notification.dto';
import { Notification, NotificationChannel, NotificationKind } from './notification.entity';
import { NotificationRepository } from './notification.repository';

/** A user's choice for one kind of notification, kept in User.notificationPreferences under the kind's name. */
export const NOTIFICATION_PREFERENCES = ['in_app', 'email', 'none'] as const;
export type NotificationPreference = (typeof NOTIFICATION_PREFERENCES)[number];
const DEFAULT_PREFERENCE: NotificationPreference = 'in_app';

export interface NotificationInput {
  userId: number;
  kind: NotificationKind;
  subject: string;
  body: Record<string, unknown>;
}

/**
 * `{"batch_feedback": "email"}` → email. A kind the user never chose, or a value this version does
 * not know, falls back to in-app: a notification is never lost to a typo in the preferences.
 */
export function preferenceFor(preferences: Record<string, unknown> | null | undefined, kind: NotificationKind) {
  const value = preferences?.[kind];
  return typeof value === 'string' && (NOTIFICATION_PREFERENCES as readonly string[]).includes(value)
    ? (value as NotificationPreference)
    : DEFAULT_PREFERENCE;
}

function toDto(row: Notification): NotificationDto {
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    body: row.body,
    channel: row.channel,
    delivery_status: row.deliveryStatus,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    read_at: row.readAt?.toISOString() ?? null,
  };
}

/**
 * Notifications for users, written into the `notification` table (the in-app feed and the e-mail
 * outbox in one): callers write inside their own transaction, so a notification exists exactly when
 * what it reports was committed. Nothing here sends e-mail; a sender drains the rows whose
 * delivery_status is `pending`.
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly notificationRepository: NotificationRepository,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
  ) {}

  /** Records a notification as the user's preferences say; `undefined` when they chose `none`. */
  async notify(manager: EntityManager, input: NotificationInput): Promise<NotificationDto | undefined> {
    const user = await this.accountsService.requireUser(input.userId, manager);
    const preference = preferenceFor(user.notificationPreferences, input.kind);
    if (preference === 'none') return undefined;
    const channel: NotificationChannel = preference;
    const now = this.clock.now();
    const row = await this.notificationRepository.insert(manager, {
      userId: input.userId,
      kind: input.kind,
      subject: input.subject.slice(0, 255),
      body: input.body,
      channel,
      deliveryStatus: channel === 'in_app' ? 'delivered' : 'pending',
      deliveredAt: channel === 'in_app' ? now : null,
      createdAt: now,
      readAt: null,
    });
    return toDto(row);
  }

  /** The user's notifications, newest first; `unread` keeps those not marked read. */
  async list(req: Request, userId: number, unread: boolean, page: PageRequest): Promise<Paginated<NotificationDto>> {
    const [rows, count] = await this.notificationRepository.page(userId, unread, {
      limit: page.pageSize,
      offset: page.offset,
    });
    return paginate(req, page, count, rows.map(toDto));
  }

  /** Marks one of the user's notifications read (again: the first read time stays); 404 for anyone else's. */
  async markRead(userId: number, idValue: string): Promise<NotificationDto> {
    if (!/^\d{1,15}$/.test(idValue)) throw ApiError.notFound('Notification not found.');
    const id = Number(idValue);
    const row = await this.notificationRepository.markRead(id, userId, this.clock.now());
    if (!row) throw ApiError.notFound('Notification not found.');
    return toDto(row);
  }
}
