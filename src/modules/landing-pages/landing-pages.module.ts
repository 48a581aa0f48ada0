import { Module } from '@nestjs/common';
import { SamplesModule } from '../samples/samples.module';
import { LandingPagesController } from './landing-pages.controller';
import { LandingPagesService } from './landing-pages.service';
import { SitemapService } from './sitemap.service';

/** Public HTML landing pages of published samples and the sitemap (outside /api/). */
@Module({
  imports: [SamplesModule],
  controllers: [LandingPagesController],
  providers: [LandingPagesService, SitemapService],
})
export class LandingPagesModule {}
