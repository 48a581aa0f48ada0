import { createHash } from 'node:crypto';
import { dataCiteAttributes } from '../metadata-formats/datacite.mapping';
import { MetadataFormatOptions } from '../metadata-formats/metadata-options';
import { sampleLandingPath, sampleLandingUrl } from '../samples';
import { doiUrl } from '../../core/identifiers/persistent-identifiers';
import { collectionPeriod, collectorParties, countryName, present } from '../metadata-formats/sample-metadata';
import { SAMPLE_FORMATS, SAMPLE_MEDIA_TYPES, SampleFormat } from '../metadata-formats/sample-formats';
import { toSchemaOrgJsonLd } from '../metadata-formats/schema-org.serializer';
import { SampleDto } from '../samples';
import { STYLESHEET_PATH } from '../web-assets/site-assets';
import { escapeHtml as text, safeHref, scriptJson } from './html';

export interface LandingPageLink {
  igsn: string;
  name: string;
}

export interface LandingPageInput {
  sample: SampleDto;
  children: LandingPageLink[];
  /** Public ancestors, parent first, up to the first one that is not public (lineage). */
  ancestors?: LandingPageLink[];
  /** Public children in all (the list shows the first ones). */
  childCount?: number;
  /** Absolute base URL of the registry (canonical link, JSON-LD `url`). */
  baseUrl: string;
  metadata: MetadataFormatOptions;
}

const FORMAT_LABELS: Record<SampleFormat, string> = {
  json: 'JSON',
  jsonld: 'JSON-LD (schema.org)',
  datacite: 'DataCite XML',
  csv: 'CSV',
};

/** The one script of the page: the citation's Copy button (the citation stays selectable without it). */
const COPY_SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var source = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById('copy-status');
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      status.textContent = 'Citation copied.';
    }, function () {
      status.textContent = 'Select the citation and copy it.';
    });
  });
});`;

/** Content-Security-Policy of the pages: nothing but the site's stylesheet and the copy script above. */
export const LANDING_PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  `script-src 'sha256-${createHash('sha256').update(COPY_SCRIPT).digest('base64')}'`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${text(title)}</title>
${head}<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
${body}
</body>
</html>
`;
}

function link(href: string, label: string): string {
  return `<a href="${text(href)}">${text(label)}</a>`;
}

function row(label: string, value: string | null): string {
  return value ? `<dt>${text(label)}</dt><dd>${value}</dd>` : '';
}

/** `A > B (previously Individual Sample > Thin Section)` for a sample a legacy XML client registered. */
function objectTypeText(sample: SampleDto): string {
  // Landing pages show public samples only, which always have an object type (reserved ones have none).
  const current = present(sample.object_type_path) ?? sample.object_type ?? '';
  const legacy = present(sample.legacy_sample_type);
  return legacy ? `${current} (previously ${legacy})` : current;
}

function plain(value: string | null | undefined): string | null {
  const kept = present(value);
  return kept === null ? null : text(kept);
}

/** "Tharp, M.; Heezen, B. (2024): Core 7. Sample Registry. IGSN 10.5072/IEABC0001. https://doi.org/…" */
export function citation(sample: SampleDto, metadata: MetadataFormatOptions): string {
  const attributes = dataCiteAttributes(sample, metadata);
  const creators = attributes.creators.map((creator) => creator.name).join('; ');
  return `${creators} (${attributes.publicationYear}): ${sample.name}. ${attributes.publisher}. IGSN ${sample.igsn}. ${doiUrl(sample.igsn)}`;
}

function location(sample: SampleDto): string | null {
  const parts: string[] = [];
  if (sample.latitude !== null && sample.longitude !== null) {
    let coordinates = `${sample.latitude}, ${sample.longitude}`;
    if (sample.end_latitude !== null && sample.end_longitude !== null) {
      coordinates += ` to ${sample.end_latitude}, ${sample.end_longitude}`;
    }
    parts.push(`Latitude, longitude: ${coordinates}`);
  }
  const place = [sample.locality, sample.city, sample.county, sample.province, countryName(sample.country)]
    .map(present)
    .filter((value): value is string => value !== null);
  if (place.length) parts.push(place.join(', '));
  if (present(sample.location_description)) parts.push(present(sample.location_description) as string);
  return parts.length ? parts.map(text).join('<br>') : null;
}

/** The public landing page of a published sample. */
export function renderLandingPage(input: LandingPageInput): string {
  const { sample, children, baseUrl, metadata } = input;
  const ancestors = input.ancestors ?? [];
  const childCount = input.childCount ?? children.length;
  const collectors = collectorParties(sample).map((party) => party.displayName);
  const materials = [sample.general_material_type, ...sample.material_types].map(present).filter(Boolean) as string[];
  const canonical = sampleLandingUrl(baseUrl, sample.igsn);
  const apiPath = `/api/samples/${encodeURIComponent(sample.igsn.split('/').pop() ?? sample.igsn)}/`;

  const related = sample.related_resources.map((resource) => {
    const href = safeHref(resource.uri);
    const label = href ? link(href, resource.uri) : text(resource.uri);
    const details = [present(resource.relation_type), present(resource.description)].filter(Boolean) as string[];
    return `<li>${label}${details.length ? ` <span class="muted">(${text(details.join(': '))})</span>` : ''}</li>`;
  });

  const details = [
    row('Object type', plain(objectTypeText(sample))),
    row('Material', materials.length ? text(materials.join('; ')) : null),
    row('Description', plain(sample.sample_description)),
    row('Location', location(sample)),
    row('Collection date', plain(collectionPeriod(sample))),
    row('Collectors', collectors.length ? text(collectors.join('; ')) : null),
    row('Collection method', plain([sample.sampling_method, sample.sampling_method_detail].filter(Boolean).join(': '))),
    row('Archive', plain(sample.current_archive?.label)),
    row('Archive contact', plain(sample.current_archive_contact)),
    row('Geologic age', plain(sample.geologic_age_verbatim)),
    row('Size', plain([sample.size, sample.size_unit].filter(Boolean).join(' '))),
    row('Other names', plain(sample.other_names.join('; '))),
    row('Published', plain(sample.publish_date?.slice(0, 10) ?? sample.created_at.slice(0, 10))),
  ].join('\n');

  const hierarchy = [
    sample.parent_sample
      ? `<p>Part of: ${link(sampleLandingPath(sample.parent_sample), sample.parent_sample)}</p>`
      : present(sample.external_parent_name)
        ? `<p>Part of: ${text(sample.external_parent_name as string)}</p>`
        : '',
    ancestors.length > 1
      ? `<p>Lineage: ${[...ancestors]
          .reverse()
          .map((ancestor) => link(sampleLandingPath(ancestor.igsn), ancestor.igsn))
          .join(' › ')} › ${text(sample.igsn)}</p>`
      : '',
    children.length
      ? `<h3>Subsamples (${childCount})</h3><ul>${children
          .map((child) => `<li>${link(sampleLandingPath(child.igsn), child.igsn)} — ${text(child.name)}</li>`)
          .join(
            '',
          )}</ul><p>${link(`${apiPath}lineage/?direction=descendants`, 'All subsamples and their subsamples (JSON)')}</p>`
      : '',
  ].join('');

  const downloads = SAMPLE_FORMATS.map(
    (format) => `<li>${link(`${apiPath}?format=${format}`, FORMAT_LABELS[format])}</li>`,
  ).join('');

  const jsonLd = toSchemaOrgJsonLd(sample, { ...metadata, baseUrl });
  const body = `<header>${text(metadata.publisher)} · Sample</header>
<main>
<h1>${text(sample.name)}</h1>
<p class="identifier">IGSN ${link(doiUrl(sample.igsn), sample.igsn)}</p>

<section aria-labelledby="cite-heading">
<h2 id="cite-heading">Cite this sample</h2>
<p class="citation" id="citation">${text(citation(sample, metadata))}</p>
<button type="button" data-copy="citation" hidden>Copy citation</button>
<p id="copy-status" class="muted" role="status" aria-live="polite"></p>
</section>

<section aria-labelledby="details-heading">
<h2 id="details-heading">Details</h2>
<dl>
${details}
</dl>
</section>
${
  hierarchy
    ? `
<section aria-labelledby="family-heading">
<h2 id="family-heading">Parent and subsamples</h2>
${hierarchy}
</section>`
    : ''
}
${
  related.length
    ? `
<section aria-labelledby="related-heading">
<h2 id="related-heading">Related resources</h2>
<ul>${related.join('')}</ul>
</section>`
    : ''
}

<section aria-labelledby="download-heading">
<h2 id="download-heading">Download as</h2>
<ul>${downloads}</ul>
</section>
</main>
<footer>Last updated ${text(sample.updated_at.slice(0, 10))}. Metadata published under the registry's terms.</footer>
<script>${COPY_SCRIPT}</script>`;

  const head = `<meta name="description" content="${text(`${sample.name}: ${present(sample.object_type_path) ?? sample.object_type}, IGSN ${sample.igsn}`)}">
<link rel="canonical" href="${text(canonical)}">
${SAMPLE_FORMATS.filter((format) => format !== 'json')
  .map(
    (format) =>
      `<link rel="alternate" type="${SAMPLE_MEDIA_TYPES[format]}" href="${text(`${apiPath}?format=${format}`)}">`,
  )
  .join('\n')}
<script type="application/ld+json">${scriptJson(jsonLd)}</script>
`;
  return page(`${sample.name} (IGSN ${sample.igsn})`, body, head);
}

/** The page for a sample that is not (or no longer) public. */
export function renderGonePage(status: 404 | 410, publisher: string): string {
  const heading = status === 410 ? 'This sample has been withdrawn' : 'Sample not found';
  const explanation =
    status === 410
      ? 'The sample this IGSN identified was deactivated by its registrant. The identifier stays reserved.'
      : 'No public sample has this IGSN. It may not be published yet, or the identifier may be mistyped.';
  return page(
    heading,
    `<header>${text(publisher)}</header>
<main>
<h1>${text(heading)}</h1>
<p>${text(explanation)}</p>
</main>`,
  );
}
