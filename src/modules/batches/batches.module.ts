import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { memoryStorage } from 'multer';
import { AppConfig } from '../../core/config/app-config';
import { APP_CONFIG } from '../../core/config/app-config.token';
import { AccountsModule } from '../accounts/accounts.module';
import { BackgroundJobsModule } from '../background-jobs/background-jobs.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { SamplesModule } from '../samples/samples.module';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { BatchHistory } from './batch-history.entity';
import { BatchHistoryRepository } from './batch-history.repository';
import { BatchRegistrationService } from './batch-registration.service';
import { BatchTemplate } from './batch-template.entity';
import { BatchesController } from './batches.controller';
import { BatchesService } from './batches.service';
import { BatchCurationController } from './curation/batch-curation.controller';
import { BatchCurationReader } from './curation/batch-curation.reader';
import { BatchCurationService } from './curation/batch-curation.service';
import { CurationRepository } from './curation/curation.repository';
import { BatchTemplatesController } from './templates/batch-templates.controller';
import { BatchTemplateRepository } from './templates/batch-template.repository';
import { BatchTemplatesService } from './templates/batch-templates.service';

/** Batch templates, uploads, history; the registration work the worker's processor runs. */
@Module({
  imports: [
    TypeOrmModule.forFeature([BatchHistory, BatchTemplate]),
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        storage: memoryStorage(),
        limits: { fileSize: config.http.uploadLimit, files: 1, fields: 20 },
      }),
    }),
    AccountsModule,
    BackgroundJobsModule,
    SamplesModule,
    VocabulariesModule,
    NotificationsModule,
  ],
  controllers: [BatchesController, BatchTemplatesController, BatchCurationController],
  providers: [
    BatchesService,
    BatchRegistrationService,
    BatchTemplatesService,
    BatchCurationService,
    BatchCurationReader,
    BatchHistoryRepository,
    BatchTemplateRepository,
    CurationRepository,
  ],
  exports: [BatchesService, BatchRegistrationService],
})
export class BatchesModule {}
