import { All, Controller, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { PUBLIC_PAGES_MOUNT } from '../../core/http/configure-http-app';
import { AccountPageExceptionFilter } from './account-page.exception-filter';
import { AccountPageGuard } from './page-session';

/** Any other address under /account/ or /staff/: a 404 page in the pages' style (registered last). */
@ApiExcludeController()
@Public()
@UseGuards(AccountPageGuard)
@UseFilters(AccountPageExceptionFilter)
@AcceptsContentTypes('application/x-www-form-urlencoded', 'application/json', 'multipart/form-data')
@Controller(PUBLIC_PAGES_MOUNT)
export class PageNotFoundController {
  @All(['account/*path', 'staff/*path'])
  notFound(): never {
    throw ApiError.notFound('There is no page at this address.');
  }
}
