import { ApiError } from '../../core/http/api-error';
import { numberFromJson } from '../../core/http/numeric-string';
import { CellValue } from './batch-workbook';
import { batchFieldByKey } from './batch-fields';

/**
 * Exports escape text that starts like a formula with a leading apostrophe; a re-uploaded export
 * must store the original text, not the escape.
 */
function text(value: CellValue): string {
  if (value instanceof Date) return value.toISOString();
  const string = String(value);
  return /^'[=+\-@\t\r]/.test(string) ? string.slice(1) : string;
}

function toNumber(value: CellValue): number | string {
  if (typeof value === 'number') return value;
  // Non-numeric text stays text so validation names the field (the JSON API's rule for numeric strings).
  const string = text(value).trim();
  return numberFromJson(string) as number | string;
}

/** A date cell or text → ISO 8601; midnight UTC dates become plain dates. */
function toDate(value: CellValue): string {
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }
  return text(value).trim();
}

function list(value: CellValue): string[] {
  return text(value)
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * The Collector cell names one person or several separated by `;`. A Collector Detail goes with a
 * single collector whole; with several it must hold one part per collector (`;`, parts may be
 * empty), or the batch would credit a detail to the wrong person.
 */
function collectors(names: CellValue | undefined, detail: CellValue | undefined): Record<string, unknown>[] {
  const labels = names === undefined ? [] : list(names);
  const description = detail === undefined ? undefined : text(detail).trim();
  if (labels.length <= 1) {
    return [{ ...(labels[0] ? { individual: { label: labels[0] } } : {}), ...(description ? { description } : {}) }];
  }
  const details = description ? description.split(';').map((part) => part.trim()) : [];
  if (description && details.length !== labels.length) {
    throw ApiError.invalidField(
      'collector_detail',
      `names ${labels.length} collectors but has ${details.length} detail(s); give one per collector, separated by ;`,
    );
  }
  const seen = new Set<string>();
  return labels.flatMap((label, index) => {
    const key = `${label.toLowerCase()}\u0000${details[index] ?? ''}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ individual: { label }, ...(details[index] ? { description: details[index] } : {}) }];
  });
}

export interface RowDefaults {
  registryCode?: string;
  objectType?: string;
}

/**
 * One spreadsheet row → the JSON body of POST /api/samples/. Flattened columns become the nested
 * objects (platform, launch platform, archives, collectors, one related link); values keep
 * their type only where it is unambiguous, so the register rules judge the rest.
 */
export function rowToSampleBody(cells: Map<string, CellValue>, defaults: RowDefaults): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const nested: Record<string, Record<string, unknown>> = {};
  const put = (object: string, key: string, value: unknown) => {
    nested[object] ??= {};
    nested[object][key] = value;
  };
  for (const [key, value] of cells) {
    const field = batchFieldByKey(key);
    if (!field || value === null) continue;
    switch (key) {
      case 'platform_label':
        put('platform', 'label', text(value));
        continue;
      case 'platform_type':
        put('platform', 'platform_type', text(value));
        continue;
      case 'platform_description':
        put('platform', 'description', text(value));
        continue;
      case 'launch_platform_label':
        put('launch_platform', 'label', text(value));
        continue;
      case 'launch_type':
        put('launch_platform', 'launch_type', text(value));
        continue;
      case 'collector':
      case 'collector_detail':
        put('collector', key, value);
        continue;
      case 'related_resource_uri':
        put('related', 'uri', text(value));
        continue;
      case 'related_resource_description':
        put('related', 'description', text(value));
        continue;
      case 'current_archive':
      case 'original_archive':
        body[key] = { label: text(value) };
        continue;
      default:
        break;
    }
    switch (field.type) {
      case 'number':
        body[key] = toNumber(value);
        break;
      case 'date':
        body[key] = toDate(value);
        break;
      case 'list':
        body[key] = list(value);
        break;
      case 'igsn':
      case 'text': {
        const string = typeof value === 'number' ? String(value) : text(value);
        // Units and precisions are closed lists spelled in lower case; "Meters" means meters.
        body[key] =
          field.vocabulary === 'length_unit' || field.vocabulary === 'date_precision' ? string.toLowerCase() : string;
        break;
      }
    }
  }
  if (nested.platform) body.platform = nested.platform;
  if (nested.launch_platform) body.launch_platform = nested.launch_platform;
  if (nested.collector) {
    body.collectors = collectors(
      nested.collector.collector as CellValue | undefined,
      nested.collector.collector_detail as CellValue | undefined,
    );
  }
  if (nested.related) body.related_resources = [nested.related];
  if (body.object_type === undefined && defaults.objectType) body.object_type = defaults.objectType;
  if (body.registry_code === undefined && defaults.registryCode) body.registry_code = defaults.registryCode;
  return body;
}
