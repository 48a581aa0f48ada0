import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { AgentsModule } from '../agents/agents.module';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { IgsnMinter } from './igsn-minter';
import { IgsnService } from './igsn.service';
import { SampleAccessPolicy } from './sample-access.policy';
import { Sample, SampleCollector } from './sample.entity';
import { SampleMapper } from './sample.mapper';
import { SampleRepository } from './sample.repository';
import { SampleWriteRepository } from './sample-write.repository';
import { SampleReferences } from './sample-references';
import { SampleHarvestRepository } from './sample-harvest.repository';
import { SampleLineageController } from './lineage/sample-lineage.controller';
import { SampleLineageRepository } from './lineage/sample-lineage.repository';
import { SampleLineageService } from './lineage/sample-lineage.service';
import { SampleQrController } from './qr/sample-qr.controller';
import { SampleOwnershipRepository } from './ownership/sample-ownership.repository';
import { SamplesController } from './samples.controller';
import { PublicListCache } from './public-list-cache';
import { SampleSearchService } from './sample-search.service';
import { SampleSearchRepository } from './sample-search.repository';
import { SampleNameStatistics } from './sample-name-statistics';
import { SampleSelectionRepository } from './sample-selection.repository';
import { SamplePublicRepository } from './sample-public.repository';
import { SampleCurationRepository } from './sample-curation.repository';
import { SampleReader } from './sample-reader';
import { SampleDeactivation } from './sample-deactivation';
import { SampleFieldResolver } from './write/sample-field-resolver';
import { SampleWriteConflicts } from './write/sample-write-conflicts';
import { KnownReferenceLookup } from './write/known-references';
import { SampleWriter } from './write/sample-writer';
import { RelatedResourceRepository } from './related-resources/related-resource.repository';

const SAMPLE_PROVIDERS = [
  SampleSearchService,
  SampleRepository,
  SampleSearchRepository,
  SampleNameStatistics,
  SampleSelectionRepository,
  SamplePublicRepository,
  SampleCurationRepository,
  SampleWriter,
  KnownReferenceLookup,
  SampleFieldResolver,
  SampleWriteConflicts,
  SampleReader,
  SampleDeactivation,
  SampleWriteRepository,
  SampleMapper,
  IgsnMinter,
  SampleAccessPolicy,
  IgsnService,
  SampleReferences,
  SampleHarvestRepository,
  SampleLineageRepository,
  SampleLineageService,
  SampleOwnershipRepository,
  RelatedResourceRepository,
];

/** Samples: IGSN minting, register, fetch, update, deactivate, search, and the access policy. */
@Module({
  imports: [TypeOrmModule.forFeature([Sample, SampleCollector]), AccountsModule, AgentsModule, VocabulariesModule],
  // Sub-resources first: `GET samples/:prefix/:suffix` (a DOI-form fetch) would otherwise also
  // match `samples/IEABC0001/lineage`, since routes are tried in the order controllers are listed.
  controllers: [SampleLineageController, SampleQrController, SamplesController],
  // PublicListCache serves SamplesController only: not exported.
  providers: [...SAMPLE_PROVIDERS, PublicListCache],
  exports: SAMPLE_PROVIDERS,
})
export class SamplesModule {}
