import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { AppConfig } from '../../core/config/app-config';
import { APP_CONFIG } from '../../core/config/app-config.token';
import { SamplesModule } from '../samples/samples.module';
import { LegacyXmlController } from './legacy-xml.controller';
import { LegacyXmlService } from './legacy-xml.service';

/**
 * The deprecated v1 XML interface: documents in, SampleWriter register/update per sample, the old
 * service's XML documents out. The mapping to the JSON body lives in legacy-xml.mapper.ts alone.
 */
@Module({
  imports: [
    SamplesModule,
    // Multipart bodies: the content field (text or file part) may be as large as any legacy document.
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        limits: { fieldSize: config.http.xmlLimit, fileSize: config.http.xmlLimit, files: 5, fields: 50, parts: 60 },
      }),
    }),
  ],
  controllers: [LegacyXmlController],
  providers: [LegacyXmlService],
})
export class LegacyXmlModule {}
