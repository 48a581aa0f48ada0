import { Module } from '@nestjs/common';
import { ApiIndexController } from './api-index.controller';
import { OpenApiController } from './openapi.controller';
import { OpenApiDocumentHolder } from './openapi-document.holder';

@Module({
  controllers: [ApiIndexController, OpenApiController],
  providers: [OpenApiDocumentHolder],
  exports: [OpenApiDocumentHolder],
})
export class OpenApiModule {}
