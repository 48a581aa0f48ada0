import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../core/auth/public.decorator';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { REGISTRY_PUBLISHER } from '../metadata-formats/metadata-options';
import { LANDING_PAGE_CSP, renderGonePage, renderLandingPage } from './landing-page.renderer';
import { LandingPagesService } from './landing-pages.service';
import { PAGE_FILE, SitemapService } from './sitemap.service';

/**
 * Public pages outside /api/: a landing page per published sample (where its DOI resolves) and the
 * sitemap search engines harvest them from. Anonymous and cacheable.
 */
@ApiTags('public pages')
@Public()
@Controller()
export class LandingPagesController {
  constructor(
    private readonly pages: LandingPagesService,
    private readonly sitemap: SitemapService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  private baseUrl(req: Request): string {
    return this.config.publicUrl ?? `${req.protocol}://${req.host}`;
  }

  @Get(['samples/:igsn', 'samples/:prefix/:suffix'])
  @ApiOperation({
    summary: 'Landing page of a published sample (HTML), where its DOI resolves.',
    description:
      'IGSN in DOI form, bare suffix, any letter case. Drafts, samples pending review, embargoed and unknown ' +
      'samples answer a 404 page, deactivated ones a 410 page.',
  })
  @ApiParam({ name: 'igsn', description: 'e.g. IEABC0001 (the DOI form 10.5072/IEABC0001 also works)' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The HTML page, with schema.org JSON-LD embedded.' })
  async landingPage(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const igsn = params.prefix !== undefined ? `${params.prefix}/${params.suffix ?? ''}` : (params.igsn ?? '');
    const found = await this.pages.find(igsn);
    res.setHeader('Content-Security-Policy', LANDING_PAGE_CSP);
    res.type('html');
    if (found.kind !== 'public') {
      const status = found.kind === 'deactivated' ? 410 : 404;
      res.status(status).setHeader('Cache-Control', 'no-store');
      res.send(renderGonePage(status, REGISTRY_PUBLISHER));
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.send(
      renderLandingPage({
        sample: found.sample,
        children: found.children,
        baseUrl: this.baseUrl(req),
        metadata: { publisher: REGISTRY_PUBLISHER },
      }),
    );
  }

  @Get('sitemap.xml')
  @ApiOperation({
    summary: 'Sitemap of the public landing pages (a sitemap index beyond 50,000 samples).',
  })
  @ApiProduces('application/xml')
  @ApiOkResponse({ description: '`<urlset>` or `<sitemapindex>`.' })
  async sitemapRoot(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.sendXml(res, await this.sitemap.root(this.baseUrl(req)));
  }

  @Get('sitemaps/:file')
  @ApiOperation({ summary: 'One page of the sitemap index (`samples-{n}.xml`).' })
  @ApiProduces('application/xml')
  @ApiOkResponse({ description: '`<urlset>`' })
  async sitemapPage(@Param('file') file: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const match = PAGE_FILE.exec(file);
    const xml = match ? await this.sitemap.page(Number(match[1]), this.baseUrl(req)) : undefined;
    if (xml === undefined) {
      res
        .status(404)
        .type('application/xml')
        .send('<?xml version="1.0" encoding="UTF-8"?>\n<error>Not found</error>\n');
      return;
    }
    this.sendXml(res, xml);
  }

  private sendXml(res: Response, xml: string): void {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('application/xml; charset=utf-8').send(xml);
  }
}
