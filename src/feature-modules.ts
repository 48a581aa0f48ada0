import { Type } from '@nestjs/common';
import { AccountPagesModule } from './modules/account-pages/account-pages.module';
import { AccountRequestsModule } from './modules/account-requests/account-requests.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AgentsModule } from './modules/agents/agents.module';
import { AuthModule } from './modules/auth/auth.module';
import { BackgroundJobsModule } from './modules/background-jobs/background-jobs.module';
import { BatchesModule } from './modules/batches/batches.module';
import { DataCiteModule } from './modules/datacite/datacite.module';
import { ExportsModule } from './modules/exports/exports.module';
import { HarvestingModule } from './modules/harvesting/harvesting.module';
import { LabelsModule } from './modules/labels/labels.module';
import { TransfersModule } from './modules/transfers/transfers.module';
import { ReservationsModule } from './modules/reservations/reservations.module';
import { RelatedResourcesModule } from './modules/related-resources/related-resources.module';
import { LandingPagesModule } from './modules/landing-pages/landing-pages.module';
import { LegacyXmlModule } from './modules/legacy-xml/legacy-xml.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { SamplesModule } from './modules/samples/samples.module';
import { VocabulariesModule } from './modules/vocabularies/vocabularies.module';
import { WebAssetsModule } from './modules/web-assets/web-assets.module';

/**
 * The feature modules, imported by both the API and the worker so they share one module graph.
 * Processors are not in these modules: the worker module adds them.
 */
export const FEATURE_MODULES: Type[] = [
  AccountsModule,
  AuthModule,
  VocabulariesModule,
  AgentsModule,
  SamplesModule,
  LegacyXmlModule,
  BackgroundJobsModule,
  BatchesModule,
  ExportsModule,
  NotificationsModule,
  AccountRequestsModule,
  DataCiteModule,
  WebAssetsModule,
  LandingPagesModule,
  AccountPagesModule,
  HarvestingModule,
  LabelsModule,
  TransfersModule,
  ReservationsModule,
  RelatedResourcesModule,
];
