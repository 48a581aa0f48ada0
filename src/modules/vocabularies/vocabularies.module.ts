import { Module } from '@nestjs/common';
import { AgentUsageRepository } from './common/agent-usage.repository';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentRoleType } from './entities/agent-role-type.entity';
import { Country } from './entities/country.entity';
import { GeologicTimeScale } from './entities/geologic-time-scale.entity';
import { LaunchPlatform } from './entities/launch-platform.entity';
import { LaunchType } from './entities/launch-type.entity';
import { LocationMethod } from './entities/location-method.entity';
import { MaterialType } from './entities/material-type.entity';
import { ObjectType } from './entities/object-type.entity';
import { Platform } from './entities/platform.entity';
import { PlatformType } from './entities/platform-type.entity';
import { SamplingMethod } from './entities/sampling-method.entity';
import { LabelledRowRepository } from './common/labelled-row.repository';
import { ObjectTypeResolver } from './object-type.resolver';
import { PlatformRepository } from './platform.repository';
import { LaunchPlatformsController, PlatformsController } from './platforms.controller';
import { PlatformsService } from './platforms.service';
import { VocabulariesController } from './vocabularies.controller';
import { VocabulariesService } from './vocabularies.service';
import { VocabularyRepository } from './vocabulary.repository';

/**
 * Controlled vocabularies (seeded by migration from seed-data/) and the platforms named in sample
 * writes. Other features use the exported services: VocabulariesService (lists, label and country
 * resolution), ObjectTypeResolver, PlatformsService (create-or-match); the agents module also uses
 * LabelledRowRepository, the statements every labelled table shares.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      AgentRoleType,
      Country,
      GeologicTimeScale,
      LaunchPlatform,
      LaunchType,
      LocationMethod,
      MaterialType,
      ObjectType,
      Platform,
      PlatformType,
      SamplingMethod,
    ]),
  ],
  controllers: [VocabulariesController, PlatformsController, LaunchPlatformsController],
  providers: [
    VocabulariesService,
    ObjectTypeResolver,
    PlatformsService,
    LabelledRowRepository,
    VocabularyRepository,
    PlatformRepository,
    AgentUsageRepository,
  ],
  exports: [VocabulariesService, ObjectTypeResolver, PlatformsService, LabelledRowRepository, AgentUsageRepository],
})
export class VocabulariesModule {}
