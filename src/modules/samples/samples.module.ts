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
import { SampleReferences } from './sample-references';
import { SampleHarvestRepository } from './sample-harvest.repository';
import { SamplesController } from './samples.controller';
import { SamplesService } from './samples.service';

const SAMPLE_PROVIDERS = [
  SamplesService,
  SampleRepository,
  SampleMapper,
  IgsnMinter,
  SampleAccessPolicy,
  IgsnService,
  SampleReferences,
  SampleHarvestRepository,
];

/** Samples: IGSN minting, register, fetch, update, deactivate, search, and the access policy. */
@Module({
  imports: [TypeOrmModule.forFeature([Sample, SampleCollector]), AccountsModule, AgentsModule, VocabulariesModule],
  controllers: [SamplesController],
  providers: SAMPLE_PROVIDERS,
  exports: SAMPLE_PROVIDERS,
})
export class SamplesModule {}
