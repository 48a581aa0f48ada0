import { Body, Controller, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER } from '../background-jobs/background-jobs.service';
import { IdempotencyKey } from '../background-jobs/idempotency-key.decorator';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';
import { SampleExportQueuedResponse, SampleExportRequestDto } from './dto/sample-export.dto';
import { SampleExportsService } from './sample-exports.service';

/** One request from a JSON body and a query string; a parameter may come from one of them only. */
function merge(body: SampleExportRequestDto, query: SampleExportRequestDto): SampleExportRequestDto {
  const merged: SampleExportRequestDto & Record<string, unknown> = {};
  for (const source of [query, body]) {
    for (const [key, value] of Object.entries(source ?? {})) {
      if (value === undefined) continue;
      if (key in merged) throw ApiError.invalidField(key, 'give this parameter once, in the query string or the body');
      merged[key] = value;
    }
  }
  return merged;
}

@ApiTags('samples')
@ApiBearerAuth('bearer')
@Controller('samples')
export class SampleExportsController {
  constructor(private readonly sampleExportsService: SampleExportsService) {}

  @Post('export')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Export the samples a search finds, as .xlsx or CSV, in the background.',
    description:
      'The parameters are those of GET /api/samples/ (same validation and visibility; no paging: every match is ' +
      'exported) plus `format` (`xlsx`, the default, or `csv`), sent as a JSON body or as a query string. The ' +
      'answer (202) names a `sample_export` job: poll GET /api/jobs/{id}/, then fetch the file from ' +
      'GET /api/jobs/{id}/download/ until it expires (EXPORT_TTL, default 24 hours). The .xlsx has a `Samples` sheet ' +
      'in the batch template layout (edit it and upload it again to POST /api/batches/upload/), a hidden `Metadata` ' +
      'sheet and a `Details` sheet with the read-only fields; the CSV has every field. Cells that a spreadsheet ' +
      "would run as a formula (starting with =, +, -, @) are prefixed with '.",
  })
  @ApiBody({ type: SampleExportRequestDto, required: false })
  @ApiHeader(IDEMPOTENCY_KEY_HEADER)
  @ApiAcceptedResponse({ type: SampleExportQueuedResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'Validation failed: format.', errors: { format: ['format must be one of xlsx, csv'] } },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiTooManyRequestsResponse({
    type: ErrorBody,
    description:
      'The user has EXPORT_MAX_CONCURRENT_PER_USER exports pending or running; `Retry-After` says when to retry.',
  })
  async export(
    @Body() body: SampleExportRequestDto,
    @Query() query: SampleExportRequestDto,
    @CurrentUser() user: AuthenticatedUser,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<SampleExportQueuedResponse> {
    return { data: await this.sampleExportsService.request(merge(body, query), user, idempotencyKey) };
  }
}
