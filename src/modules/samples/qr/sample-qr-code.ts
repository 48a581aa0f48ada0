import QRCode from 'qrcode';
import { AppConfig } from '../../../core/config/app-config';
import { sampleLandingUrl } from '../sample-landing-address';
import { doiUrl } from '../../../core/identifiers/persistent-identifiers';

/** Medium error correction: a label may be scuffed (15 % of the code), and the code stays small. */
const ERROR_CORRECTION = 'M';
/** The light border a scanner needs around a code, in modules (ISO/IEC 18004 asks for 4). */
export const QR_QUIET_ZONE = 4;

/**
 * Where a sample's QR code points: its DOI at the resolver (`https://doi.org/<DOI>`) when the
 * registry registers DOIs with DataCite, else its landing page, which is then the only address that
 * resolves. `baseUrl` is publicBaseUrl (PUBLIC_URL, or the request's origin).
 */
export function sampleResolvableUrl(doi: string, config: Pick<AppConfig, 'datacite'>, baseUrl: string): string {
  return config.datacite ? doiUrl(doi) : sampleLandingUrl(baseUrl, doi);
}

/** The QR code as an SVG document, with its quiet zone. */
export function qrCodeSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: ERROR_CORRECTION, margin: QR_QUIET_ZONE });
}

/** The QR code as a PNG `width` pixels wide (rounded down to whole pixels per module), with its quiet zone. */
export function qrCodePng(text: string, width: number): Promise<Buffer> {
  return QRCode.toBuffer(text, {
    type: 'png',
    errorCorrectionLevel: ERROR_CORRECTION,
    margin: QR_QUIET_ZONE,
    width,
  });
}

/**
 * The dark modules of the code as one SVG path in module units (without quiet zone), as the
 * qrcode package draws them (horizontal runs stroked one module wide), and the code's width in
 * modules: for writers that draw vector paths themselves (the PDF label sheets).
 */
export async function qrCodePath(text: string): Promise<{ modules: number; path: string }> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: ERROR_CORRECTION, margin: 0 });
  const size = /viewBox="0 0 (\d+) \1"/.exec(svg);
  const path = /<path stroke="[^"]*" d="([^"]+)"/.exec(svg);
  if (!size || !path) throw new Error('The qrcode package wrote an SVG of a shape this code does not know.');
  return { modules: Number(size[1]), path: path[1] };
}
