import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { AccountRequest } from './account-request.entity';
import { AccountRequestRepository } from './account-request.repository';
import { AccountRequestsController } from './account-requests.controller';
import { AccountRequestsService } from './account-requests.service';

/** Requests a curator decides (upload permission, registry codes): JSON API here, pages in account-pages. */
@Module({
  imports: [TypeOrmModule.forFeature([AccountRequest]), AccountsModule, NotificationsModule],
  controllers: [AccountRequestsController],
  providers: [AccountRequestsService, AccountRequestRepository],
  exports: [AccountRequestsService],
})
export class AccountRequestsModule {}
