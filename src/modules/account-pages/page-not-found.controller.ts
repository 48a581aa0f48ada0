import { AccountPageController } from './account-page.controller.decorator';
import { All } from '@nestjs/common';
import { ApiError } from '../../core/http/api-error';

/** Any other address under /account/ or /staff/: a 404 page in the pages' style (registered last). */
@AccountPageController('application/json', 'multipart/form-data')
export class PageNotFoundController {
  @All(['account/*path', 'staff/*path'])
  notFound(): never {
    throw ApiError.notFound('There is no page at this address.');
  }
}
