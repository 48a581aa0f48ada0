import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { Notification } from './notification.entity';

/** Every SQL statement of `notification`; a new one is written in the caller's transaction. */
@Injectable()
export class NotificationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, fields: Partial<Notification>): Promise<Notification> {
    return manager.save(manager.create(Notification, fields));
  }

  /** A page of the user's notifications (only unread ones when `unread`), newest first, and how many. */
  async page(
    userId: number,
    unread: boolean,
    page: { limit: number; offset: number },
  ): Promise<[Notification[], number]> {
    return this.dataSource.getRepository(Notification).findAndCount({
      where: unread ? { userId, readAt: IsNull() } : { userId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  /** Sets read_at on the user's notification unless it was read before; the notification, or null. */
  async markRead(id: number, userId: number, now: Date): Promise<Notification | null> {
    const repository = this.dataSource.getRepository(Notification);
    await repository.update({ id, userId, readAt: IsNull() }, { readAt: now });
    return repository.findOneBy({ id, userId });
  }
}
