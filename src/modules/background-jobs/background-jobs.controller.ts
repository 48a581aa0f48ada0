import { Controller, Get, HttpCode, Param, Post, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ErrorBody } from '../../core/http/error-body';
import { BackgroundJobsService, toJobDto } from './background-jobs.service';
import { BackgroundJobResponse } from './dto/background-job.dto';

const NOT_FOUND = { type: ErrorBody, example: { message: 'Job not found.', errors: {} } };

/**
 * Encodes a file name for Content-Disposition (RFC 6266 / 5987): `filename*` carries it exactly
 * (percent-encoded UTF-8, including the `'()*` that encodeURIComponent leaves alone), `filename`
 * an ASCII stand-in for clients that do not read `filename*`.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

@ApiTags('jobs')
@ApiBearerAuth('bearer')
@Controller('jobs')
export class BackgroundJobsController {
  constructor(private readonly backgroundJobsService: BackgroundJobsService) {}

  @Get(':id')
  @ApiOperation({ summary: 'A background job (batch registration or sample export); owner or staff.' })
  @ApiOkResponse({ type: BackgroundJobResponse })
  @ApiNotFoundResponse(NOT_FOUND)
  async get(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<BackgroundJobResponse> {
    return { data: toJobDto(await this.backgroundJobsService.requireVisible(id, user)) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a pending or processing job: it fails with "Cancelled by user." and its work is rolled back.',
  })
  @ApiOkResponse({ type: BackgroundJobResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Only pending or processing jobs can be cancelled; this job is completed.',
      errors: { status: ['is completed'] },
    },
  })
  @ApiNotFoundResponse(NOT_FOUND)
  async cancel(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<BackgroundJobResponse> {
    return { data: toJobDto(await this.backgroundJobsService.cancel(id, user)) };
  }

  @Get(':id/download')
  @ApiOperation({ summary: "The job's file: a batch's error report, or an export." })
  @ApiProduces('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv')
  @ApiOkResponse({ description: 'The file.' })
  @ApiNotFoundResponse({
    type: ErrorBody,
    example: { message: 'This job has no file to download (or it has expired).', errors: {} },
  })
  async download(
    @Param('id') id: string,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { file, content } = await this.backgroundJobsService.download(id, user);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Disposition', contentDisposition(file.filename));
    res.setHeader('Content-Length', String(content.length));
    return new StreamableFile(content);
  }
}
