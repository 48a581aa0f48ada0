import { Module } from '@nestjs/common';
import { SamplesModule } from '../samples/samples.module';
import { RelatedResourcesController } from './related-resources.controller';
import { RelatedResourcesService } from './related-resources.service';

/** Related resource objects: /api/related-resources/ (the table and its sample links: samples/related-resources). */
@Module({
  imports: [SamplesModule],
  controllers: [RelatedResourcesController],
  providers: [RelatedResourcesService],
})
export class RelatedResourcesModule {}
