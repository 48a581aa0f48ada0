import { Module } from '@nestjs/common';
import { SamplesModule } from '../samples/samples.module';
import { DataCiteBudget } from './datacite-budget';
import { DoiDeliveryService } from './doi-delivery.service';
import { DoiMetrics } from './doi-metrics';
import { DoiRegistrationController } from './doi-registration.controller';
import { DoiRegistrationService } from './doi-registration.service';
import { SampleDoiRepository } from './sample-doi.repository';

/**
 * DataCite DOI registration: the outbox the triggers on `sample` fill (sample_doi), its delivery
 * (worker: DoiDeliveryProcessor) under a request budget all workers share, and the staff actions
 * on it. No writer of samples calls this module: registration follows every change through the
 * database.
 */
@Module({
  imports: [SamplesModule],
  controllers: [DoiRegistrationController],
  providers: [SampleDoiRepository, DataCiteBudget, DoiMetrics, DoiDeliveryService, DoiRegistrationService],
  exports: [DoiDeliveryService, DoiRegistrationService],
})
export class DataCiteModule {}
