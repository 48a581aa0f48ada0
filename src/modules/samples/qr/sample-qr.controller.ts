import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../../core/auth/authenticated-user';
import { Public } from '../../../core/auth/public.decorator';
import { Clock } from '../../../core/clock';
import { AppConfig } from '../../../core/config/app-config';
import { InjectAppConfig } from '../../../core/config/app-config.token';
import { ApiError } from '../../../core/http/api-error';
import { ErrorBody } from '../../../core/http/error-body';
import { publicBaseUrl } from '../../../core/http/public-address';
import { IgsnService } from '../igsn.service';
import { ApiIgsnPath } from '../igsn-path.openapi';
import { SampleAccessPolicy } from '../sample-access.policy';
import { accessFacts } from '../sample.mapper';
import { SampleReader } from '../sample-reader';
import { qrCodePng, qrCodeSvg, sampleResolvableUrl } from './sample-qr-code';

type IgsnParams = { igsn?: string; prefix?: string; suffix?: string };

function igsnOf(params: IgsnParams): string {
  return params.prefix !== undefined ? `${params.prefix}/${params.suffix ?? ''}` : (params.igsn ?? '');
}

const PNG_SIZE = { default: 300, min: 64, max: 2048 };

const DESCRIPTION =
  "A QR code of the sample's resolvable address: https://doi.org/<DOI> when the registry registers DOIs, " +
  'otherwise its landing page. Visibility as GET /api/samples/{igsn}/ (401 without a token for a sample that is ' +
  'not public, 404 without view permission).';

/** GET /api/samples/{igsn}/qr.svg and qr.png. */
@ApiTags('samples')
@Controller('samples')
export class SampleQrController {
  constructor(
    private readonly reader: SampleReader,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  @Public()
  @Get([':igsn/qr.svg', ':prefix/:suffix/qr.svg'])
  @ApiIgsnPath()
  @ApiOperation({ summary: "The sample's QR code as SVG.", description: DESCRIPTION })
  @ApiOkResponse({ description: 'An SVG image.', content: { 'image/svg+xml': { schema: { type: 'string' } } } })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Sample not found.', errors: {} } })
  async svg(
    @Param() params: IgsnParams,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<void> {
    const url = await this.target(params, req, res, user);
    res.type('image/svg+xml').send(await qrCodeSvg(url));
  }

  @Public()
  @Get([':igsn/qr.png', ':prefix/:suffix/qr.png'])
  @ApiIgsnPath()
  @ApiOperation({ summary: "The sample's QR code as PNG.", description: DESCRIPTION })
  @ApiQuery({
    name: 'size',
    required: false,
    description: `Width and height in pixels (${PNG_SIZE.min}-${PNG_SIZE.max}, default ${PNG_SIZE.default}).`,
    schema: { type: 'integer', minimum: PNG_SIZE.min, maximum: PNG_SIZE.max, default: PNG_SIZE.default },
  })
  @ApiOkResponse({
    description: 'A PNG image.',
    content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Sample not found.', errors: {} } })
  async png(
    @Param() params: IgsnParams,
    @Query() query: Record<string, unknown>,
    @Req() req: Request,
    @Res() res: Response,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<void> {
    const size = pngSize(query);
    const url = await this.target(params, req, res, user);
    res.type('image/png').send(await qrCodePng(url, size));
  }

  /** The address to encode, after fetch's visibility check; sets the caching headers. */
  private async target(params: IgsnParams, req: Request, res: Response, user?: AuthenticatedUser): Promise<string> {
    const row = await this.reader.findVisibleRow(igsnOf(params), user);
    const isPublic = SampleAccessPolicy.isPublic(accessFacts(row), this.clock.now());
    res.setHeader('Cache-Control', isPublic ? 'public, max-age=86400' : 'private, no-store');
    return sampleResolvableUrl(
      this.igsnService.toDoi(row.igsn),
      this.config,
      publicBaseUrl(this.config.publicUrl, req),
    );
  }
}

function pngSize(query: Record<string, unknown>): number {
  const unknown = Object.keys(query).filter((name) => name !== 'size');
  if (unknown.length) throw ApiError.invalidField(unknown[0], 'is not a parameter of this image');
  if (query.size === undefined) return PNG_SIZE.default;
  const size = typeof query.size === 'string' && /^\d{1,5}$/.test(query.size) ? Number(query.size) : NaN;
  if (!(size >= PNG_SIZE.min && size <= PNG_SIZE.max)) {
    throw ApiError.invalidField('size', `must be a whole number of pixels from ${PNG_SIZE.min} to ${PNG_SIZE.max}`);
  }
  return size;
}
