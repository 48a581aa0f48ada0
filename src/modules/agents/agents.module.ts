import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { VocabulariesModule } from '../vocabularies/vocabularies.module';
import { Archive } from './archive.entity';
import { ArchiveRepository } from './archive.repository';
import { ArchivesController } from './archives.controller';
import { ArchivesService } from './archives.service';
import { Collector } from './collector.entity';
import { CollectorRepository } from './collector.repository';
import { CollectorsService } from './collectors.service';
import { Individual } from './individual.entity';
import { IndividualRepository } from './individual.repository';
import { IndividualsController } from './individuals.controller';
import { IndividualsService } from './individuals.service';
import { Institution } from './institution.entity';
import { InstitutionRepository } from './institution.repository';
import { InstitutionsController } from './institutions.controller';
import { InstitutionsService } from './institutions.service';

/**
 * People and organisations (individuals, institutions, archives, collectors) and their
 * create-or-match services, which sample, batch and legacy-XML writes call (optionally inside their
 * own transaction). IndividualRepository is exported for accounts, which create a user's individual.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Archive, Collector, Individual, Institution]), VocabulariesModule],
  controllers: [ArchivesController, InstitutionsController, IndividualsController],
  providers: [
    ArchivesService,
    CollectorsService,
    IndividualsService,
    InstitutionsService,
    ArchiveRepository,
    CollectorRepository,
    IndividualRepository,
    InstitutionRepository,
  ],
  exports: [
    TypeOrmModule,
    ArchivesService,
    CollectorsService,
    IndividualsService,
    InstitutionsService,
    IndividualRepository,
  ],
})
export class AgentsModule {}
