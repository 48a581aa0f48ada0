import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { FilesModule } from '../files/files.module';
import { BackgroundJob } from './background-job.entity';
import { BackgroundJobRepository } from './background-job.repository';
import { BackgroundJobsController } from './background-jobs.controller';
import { BackgroundJobsService } from './background-jobs.service';
import { QueuesController } from './queues.controller';

/** Job rows, their queue entries, GET/cancel/download for users, and the staff queue view. */
@Module({
  imports: [TypeOrmModule.forFeature([BackgroundJob]), AccountsModule, FilesModule],
  controllers: [BackgroundJobsController, QueuesController],
  providers: [BackgroundJobsService, BackgroundJobRepository],
  exports: [BackgroundJobsService, FilesModule],
})
export class BackgroundJobsModule {}
