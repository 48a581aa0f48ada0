import { Injectable } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { sampleLandingUrl } from '../samples';
import { escapeXmlText } from '../metadata-formats/xml-writer';
import { IgsnService } from '../samples';
import { SampleAccessPolicy } from '../samples';
import { SamplePublicRepository, SitemapEntry } from '../samples';

const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** The sitemap protocol's limit of URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;

/**
 * `/sitemap.xml`: every public sample's landing page. Up to SITEMAP_MAX_URLS public samples it is
 * one `<urlset>`; beyond, a `<sitemapindex>` of pages, each the public samples whose ids fall in
 * one range of `pageSize` ids (so a page never holds more than `pageSize` URLs). Pages are read by
 * id range from a partial index and the index skips from range to range, so the cost does not
 * grow with the table: no OFFSET, no count over every sample.
 */
@Injectable()
export class SitemapService {
  /** Ids per sitemap page (and URLs per page at most). */
  pageSize = SITEMAP_MAX_URLS;

  constructor(
    private readonly samplePublicRepository: SamplePublicRepository,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
  ) {}

  async root(baseUrl: string): Promise<string> {
    const visible = this.policy.publicCondition('s', this.clock.now());
    if (!(await this.samplePublicRepository.moreThan(this.pageSize, visible))) {
      return this.urlset(await this.samplePublicRepository.idRange(0, null, visible), baseUrl);
    }
    const pages = await this.samplePublicRepository.nonEmptyIdRanges(this.pageSize, visible);
    const entries = pages.map(
      (page) => `  <sitemap><loc>${escapeXmlText(`${baseUrl}${pagePath(page)}`)}</loc></sitemap>`,
    );
    return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${SITEMAP_NAMESPACE}">\n${entries.join('\n')}\n</sitemapindex>\n`;
  }

  /** One page of the index, or undefined when it holds no public sample. */
  async page(page: number, baseUrl: string): Promise<string | undefined> {
    const from = page * this.pageSize;
    const visible = this.policy.publicCondition('s', this.clock.now());
    const entries = await this.samplePublicRepository.idRange(from, from + this.pageSize, visible);
    return entries.length ? this.urlset(entries, baseUrl) : undefined;
  }

  private urlset(entries: SitemapEntry[], baseUrl: string): string {
    const lines = entries.map(
      (entry) =>
        `  <url><loc>${escapeXmlText(sampleLandingUrl(baseUrl, entry.igsn))}</loc>` +
        `<lastmod>${entry.updatedAt.toISOString().slice(0, 10)}</lastmod></url>`,
    );
    return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${SITEMAP_NAMESPACE}">\n${lines.join('\n')}\n</urlset>\n`;
  }
}

/** `/sitemaps/samples-{page}.xml`. */
export function pagePath(page: number): string {
  return `/sitemaps/samples-${page}.xml`;
}

export const PAGE_FILE = /^samples-(\d{1,9})\.xml$/;
