/** Where a sample's public landing page lives: a leaf that the formats, sitemaps and QR codes share. */

/** `/samples/{suffix}`: where a sample's landing page (HTML) lives, relative to the registry's base URL. */
export function sampleLandingPath(igsn: string): string {
  return `/samples/${encodeURIComponent(igsn.split('/').pop() ?? igsn)}`;
}

/**
 * `{baseUrl}/samples/{suffix}`: the sample's public landing page, where its DOI resolves to.
 * `baseUrl` comes from publicBaseUrl (core/http/public-address), for every place that writes it.
 */
export function sampleLandingUrl(baseUrl: string, igsn: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${sampleLandingPath(igsn)}`;
}
