import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiHeader,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ErrorBody } from '../../core/http/error-body';
import { publicBaseUrl } from '../../core/http/public-address';
import { IDEMPOTENCY_KEY_HEADER } from '../background-jobs/background-jobs.service';
import { IdempotencyKey } from '../background-jobs/idempotency-key.decorator';
import { LabelSheetQueuedResponse, LabelSheetRequestDto } from './dto/label-sheet.dto';
import { LABEL_LAYOUTS, LABEL_LAYOUT_NAMES } from './label-layouts';
import { LabelSheetsService } from './label-sheets.service';

const LAYOUT_LIST = LABEL_LAYOUT_NAMES.map((name) => `\`${name}\`: ${LABEL_LAYOUTS[name].description}`).join('; ');

@ApiTags('samples')
@ApiBearerAuth('bearer')
@Controller('samples')
export class LabelsController {
  constructor(
    private readonly labelSheetsService: LabelSheetsService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  @Post('labels')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Print labels (PDF, one per sample, with a QR code) for the samples a search or a batch finds.',
    description:
      'The selection is either the search parameters of GET /api/samples/ (same validation and visibility) or ' +
      "`batch_id` (the samples of that batch the caller may see). Each label shows a QR code of the sample's " +
      'resolvable address (https://doi.org/<DOI>, or the landing page when DOIs are off), the IGSN, the name and ' +
      `up to three \`fields\`. Layouts: ${LAYOUT_LIST}. Labels follow the search order (newest first). The answer ` +
      '(202) names a `label_sheet` job: poll GET /api/jobs/{id}/, then fetch the PDF from ' +
      'GET /api/jobs/{id}/download/ until it expires (EXPORT_TTL). At most LABELS_MAX_SAMPLES (10,000) samples.',
  })
  @ApiHeader(IDEMPOTENCY_KEY_HEADER)
  @ApiAcceptedResponse({ type: LabelSheetQueuedResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'There is no sample to print a label for.', errors: { search: ['finds no sample'] } },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  async labelSheet(
    @Body() body: LabelSheetRequestDto,
    @Req() req: Request,
    @CurrentUser() user: AuthenticatedUser,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<LabelSheetQueuedResponse> {
    const baseUrl = publicBaseUrl(this.config.publicUrl, req);
    return { data: await this.labelSheetsService.request(body, user, baseUrl, idempotencyKey) };
  }
}
