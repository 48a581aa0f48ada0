import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ApiError } from '../http/api-error';

/** Holds the document built once at start-up, after every module is registered. */
@Injectable()
export class OpenApiDocumentHolder {
  private document?: OpenAPIObject;

  set(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject {
    if (!this.document) throw ApiError.serviceUnavailable('The API document is not built yet.');
    return this.document;
  }
}
