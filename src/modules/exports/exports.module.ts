import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BackgroundJobsModule } from '../background-jobs/background-jobs.module';
import { SamplesModule } from '../samples/samples.module';
import { SampleExportBuilder } from './sample-export.builder';
import { SampleExportsController } from './sample-exports.controller';
import { SampleExportsService } from './sample-exports.service';

/**
 * Sample exports: POST /api/samples/export/ queues a `sample_export` job; the worker's
 * SampleExportProcessor (registered by the worker module only) runs SampleExportBuilder; the file
 * is served by GET /api/jobs/{id}/download/ until it expires.
 */
@Module({
  imports: [AccountsModule, BackgroundJobsModule, SamplesModule],
  controllers: [SampleExportsController],
  providers: [SampleExportsService, SampleExportBuilder],
  exports: [SampleExportBuilder],
})
export class ExportsModule {}
