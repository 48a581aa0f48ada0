import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  StreamableFile,
  UploadedFile,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { ErrorBody } from '../../core/http/error-body';
import { ApiPageQuery, parsePageRequest } from '../../core/http/pagination';
import { contentDisposition } from '../background-jobs/background-jobs.controller';
import { IDEMPOTENCY_KEY_HEADER } from '../background-jobs/background-jobs.service';
import { IdempotencyKey } from '../background-jobs/idempotency-key.decorator';
import { BatchesService, UploadedSpreadsheet } from './batches.service';
import { BatchHistoryListResponse, BatchHistoryResponse, BatchQueuedResponse, BatchUploadForm } from './dto/batch.dto';
import { UploadPermissionGuard } from '../../core/auth/upload-permission.guard';
import { RefuseNulInFormInterceptor } from '../../core/http/multipart-form.interceptor';

const NOT_FOUND = { type: ErrorBody, example: { message: 'Batch not found.', errors: {} } };

@ApiTags('batches')
@ApiBearerAuth('bearer')
@Controller('batches')
export class BatchesController {
  constructor(private readonly batchesService: BatchesService) {}

  @Post('upload')
  @HttpCode(202)
  @AcceptsContentTypes('multipart/form-data')
  @UseGuards(UploadPermissionGuard)
  @UseInterceptors(FileInterceptor('file'), RefuseNulInFormInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: BatchUploadForm })
  @ApiOperation({
    summary:
      'Upload a filled-in batch workbook. It is checked, stored and queued; the answer (202) names the job to poll.',
  })
  @ApiHeader(IDEMPOTENCY_KEY_HEADER)
  @ApiAcceptedResponse({ type: BatchQueuedResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'The file is not an .xlsx workbook (it is not a zip archive; is it a CSV renamed to .xlsx?).',
      errors: { file: ['The file is not an .xlsx workbook (it is not a zip archive; is it a CSV renamed to .xlsx?).'] },
    },
  })
  @ApiConflictResponse({
    type: ErrorBody,
    description: 'The same workbook was uploaded before by the same user (see allow_duplicate).',
    example: {
      message:
        'This workbook was already uploaded as batch 12 (cores.xlsx, 2025-11-20T10:00:00.000Z); send allow_duplicate=true to register it again.',
      errors: { file: ['is the same workbook as batch 12'] },
    },
  })
  @ApiPayloadTooLargeResponse({ type: ErrorBody })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorBody })
  async upload(
    @UploadedFile() file: UploadedSpreadsheet | undefined,
    @Body() form: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<BatchQueuedResponse> {
    return { data: await this.batchesService.upload(file, form ?? {}, user, idempotencyKey) };
  }

  @Get()
  @ApiOperation({ summary: 'Batch history: your batches and your teams’ (staff: all), newest first.' })
  @ApiQuery({ name: 'status', required: false, enum: ['pending', 'processing', 'completed', 'failed'] })
  @ApiQuery({ name: 'registry_code', required: false, type: String })
  @ApiPageQuery({ defaultSize: 25, maxSize: 500 })
  @ApiOkResponse({ type: BatchHistoryListResponse })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'A query parameter is out of bounds.' })
  list(
    @Req() req: Request,
    @Query() query: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchHistoryListResponse> {
    return this.batchesService.list(
      req,
      query,
      parsePageRequest(query, { defaultSize: 25, maxSize: 500 }),
      user,
      false,
    );
  }

  @Get('completed')
  @ApiOperation({ summary: 'Completed batches, in the same shape as the history.' })
  @ApiQuery({ name: 'registry_code', required: false, type: String })
  @ApiPageQuery({ defaultSize: 25, maxSize: 500 })
  @ApiOkResponse({ type: BatchHistoryListResponse })
  @ApiBadRequestResponse({ type: ErrorBody, description: 'A query parameter is out of bounds.' })
  completed(
    @Req() req: Request,
    @Query() query: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchHistoryListResponse> {
    return this.batchesService.list(req, query, parsePageRequest(query, { defaultSize: 25, maxSize: 500 }), user, true);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One batch.' })
  @ApiOkResponse({ type: BatchHistoryResponse })
  @ApiNotFoundResponse(NOT_FOUND)
  async detail(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<BatchHistoryResponse> {
    return { data: await this.batchesService.requireVisible(id, user) };
  }

  @Get(':id/spreadsheet')
  @ApiOperation({ summary: 'The workbook as uploaded.' })
  @ApiProduces('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
  @ApiOkResponse({ description: 'The uploaded .xlsx file.' })
  @ApiNotFoundResponse({
    type: ErrorBody,
    example: { message: 'The uploaded spreadsheet of this batch is no longer available.', errors: {} },
  })
  async spreadsheet(
    @Param('id') id: string,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { file, content } = await this.batchesService.spreadsheet(id, user);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Disposition', contentDisposition(file.filename));
    return new StreamableFile(content);
  }
}
