import { Controller, UseFilters, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../core/auth/public.decorator';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { PUBLIC_PAGES_MOUNT } from '../../core/http/configure-http-app';
import { AccountPageExceptionFilter } from './account-page.exception-filter';
import { AccountPageGuard } from './page-session';

/**
 * A controller of account pages: outside the OpenAPI document, past the bearer guard (the page
 * guard reads the browser session instead), form bodies, HTML error pages, served through the
 * public-pages mount.
 */
export const AccountPageController = (...accepts: string[]) =>
  applyDecorators(
    ApiExcludeController(),
    Public(),
    UseGuards(AccountPageGuard),
    UseFilters(AccountPageExceptionFilter),
    AcceptsContentTypes('application/x-www-form-urlencoded', ...accepts),
    Controller(PUBLIC_PAGES_MOUNT),
  );
