import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BackgroundJobsModule } from '../background-jobs/background-jobs.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { SamplesModule } from '../samples/samples.module';
import { OwnershipTransferRepository } from './ownership-transfer.repository';
import { TransfersController } from './transfers.controller';
import { TransfersService } from './transfers.service';

/** Ownership transfers: /api/transfers/; large acceptances run on the worker (OwnershipTransferProcessor). */
@Module({
  imports: [AccountsModule, BackgroundJobsModule, NotificationsModule, SamplesModule],
  controllers: [TransfersController],
  providers: [TransfersService, OwnershipTransferRepository],
  exports: [TransfersService],
})
export class TransfersModule {}
