import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../core/auth/public.decorator';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { PUBLIC_PAGES_MOUNT } from '../../core/http/configure-http-app';
import { cacheRead, strongEtag } from '../../core/http/http-cache';
import { publicBaseUrl } from '../../core/http/public-address';
import { REGISTRY_PUBLISHER } from '../metadata-formats/metadata-options';
import { LANDING_PAGE_CSP, renderGonePage, renderLandingPage } from './landing-page.renderer';
import { LandingPagesService } from './landing-pages.service';
import { PAGE_FILE, SitemapService } from './sitemap.service';

/**
 * Public pages outside /api/ (`/samples/{igsn}`, `/sitemap.xml`; see PUBLIC_PAGES_MOUNT): a landing page per published sample (where its DOI resolves) and the
 * sitemap search engines harvest them from. Anonymous and cacheable.
 */
@ApiExcludeController()
@Public()
@Controller(PUBLIC_PAGES_MOUNT)
export class LandingPagesController {
  constructor(
    private readonly landingPagesService: LandingPagesService,
    private readonly sitemapService: SitemapService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  private baseUrl(req: Request): string {
    return publicBaseUrl(this.config.publicUrl, req);
  }

  /** `/samples/{igsn}` (DOI form, suffix, any case): the page of a public sample; 404/410 pages otherwise. */
  @Get(['samples/:igsn', 'samples/:prefix/:suffix'])
  async landingPage(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const igsn = params.prefix !== undefined ? `${params.prefix}/${params.suffix ?? ''}` : (params.igsn ?? '');
    const found = await this.landingPagesService.find(igsn);
    res.setHeader('Content-Security-Policy', LANDING_PAGE_CSP);
    res.type('html');
    if (found.kind !== 'public') {
      const status = found.kind === 'deactivated' ? 410 : 404;
      res.status(status).setHeader('Cache-Control', 'no-store');
      res.send(renderGonePage(status, REGISTRY_PUBLISHER));
      return;
    }
    const baseUrl = this.baseUrl(req);
    // The page is built from `found` alone: the data decides the tag, the HTML need not be rendered.
    if (cacheRead(req, res, strongEtag([baseUrl, JSON.stringify(found)]), 'shared', this.maxAge)) {
      res.status(304).end();
      return;
    }
    res.send(
      renderLandingPage({
        sample: found.sample,
        children: found.children,
        ancestors: found.ancestors,
        childCount: found.childCount,
        baseUrl,
        metadata: { publisher: REGISTRY_PUBLISHER },
      }),
    );
  }

  /** `/sitemap.xml`: a `<urlset>`, or a `<sitemapindex>` beyond 50,000 public samples. */
  @Get('sitemap.xml')
  async sitemapRoot(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.sendXml(req, res, await this.sitemapService.root(this.baseUrl(req)));
  }

  /** `/sitemaps/samples-{n}.xml`: one page of the index. */
  @Get('sitemaps/:file')
  async sitemapPage(@Param('file') file: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const match = PAGE_FILE.exec(file);
    const xml = match ? await this.sitemapService.page(Number(match[1]), this.baseUrl(req)) : undefined;
    if (xml === undefined) {
      res
        .status(404)
        .type('application/xml')
        .send('<?xml version="1.0" encoding="UTF-8"?>\n<error>Not found</error>\n');
      return;
    }
    this.sendXml(req, res, xml);
  }

  private sendXml(req: Request, res: Response, xml: string): void {
    if (cacheRead(req, res, strongEtag([xml]), 'shared', this.maxAge)) {
      res.status(304).end();
      return;
    }
    res.type('application/xml; charset=utf-8').send(xml);
  }

  private get maxAge(): number {
    return this.config.http.cacheMaxAgeSeconds;
  }
}
