import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FilesModule } from '../files/files.module';
import { BackgroundJob } from './background-job.entity';
import { BackgroundJobsController } from './background-jobs.controller';
import { BackgroundJobsService } from './background-jobs.service';

/** Job rows, their queue entries, and GET/cancel/download for users. */
@Module({
  imports: [TypeOrmModule.forFeature([BackgroundJob]), FilesModule],
  controllers: [BackgroundJobsController],
  providers: [BackgroundJobsService],
  exports: [BackgroundJobsService, FilesModule],
})
export class BackgroundJobsModule {}
