import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BackgroundJobsModule } from '../background-jobs/background-jobs.module';
import { SamplesModule } from '../samples/samples.module';
import { LabelSheetBuilder } from './label-sheet.builder';
import { LabelSheetsService } from './label-sheets.service';
import { LabelsController } from './labels.controller';

/**
 * Label sheets: POST /api/samples/labels/ queues a `label_sheet` job; the worker's
 * LabelSheetProcessor (registered by the worker module only) draws the PDF with LabelSheetBuilder;
 * it is served by GET /api/jobs/{id}/download/ until it expires. The QR code of one sample is a
 * samples route (samples/qr).
 */
@Module({
  imports: [AccountsModule, BackgroundJobsModule, SamplesModule],
  controllers: [LabelsController],
  providers: [LabelSheetsService, LabelSheetBuilder],
  exports: [LabelSheetBuilder],
})
export class LabelsModule {}
