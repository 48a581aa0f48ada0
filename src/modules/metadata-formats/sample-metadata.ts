import { orcidUrl, rorUrl } from '../../core/identifiers/persistent-identifiers';
import { SampleCollector, SampleDto } from '../samples';

/**
 * Facts the metadata formats derive from a sample in the same way (names of people and
 * organisations, material paths, places, dates, identifiers), so DataCite, JSON-LD and CSV agree.
 */

/** A text value worth writing: trimmed, or null when absent or blank. */
export function present(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** Present values only, in order. */
export function presentAll(values: readonly (string | null | undefined)[]): string[] {
  return values.map(present).filter((value): value is string => value !== null);
}

/** A person or organisation named on a sample (a collector, an archive, the publisher). */
export interface Party {
  nameType: 'Personal' | 'Organizational';
  /** DataCite form: `Family, Given` for people with both names, otherwise the label. */
  name: string;
  /** Natural reading order, for schema.org `name`. */
  displayName: string;
  givenName: string | null;
  familyName: string | null;
  /** ORCID (people) or ROR (organisations) URL. */
  identifier: { scheme: 'ORCID' | 'ROR'; url: string } | null;
  affiliation: { name: string; ror: string | null } | null;
}

/**
 * A collector as a party: the individual when there is one (affiliated with the collector's
 * institution), otherwise the institution; null when neither has a name.
 */
export function collectorParty(collector: SampleCollector): Party | null {
  const person = collector.individual;
  const institution = collector.institution;
  const institutionName = present(institution?.label);
  const givenName = present(person?.fname);
  const familyName = present(person?.lname);
  const label = present(person?.label);
  const personName = label ?? (presentAll([givenName, familyName]).join(' ') || null);
  if (personName !== null) {
    const orcid = orcidUrl(person?.individual_uri);
    return {
      nameType: 'Personal',
      name: givenName && familyName ? `${familyName}, ${givenName}` : personName,
      displayName: personName,
      givenName,
      familyName,
      identifier: orcid ? { scheme: 'ORCID', url: orcid } : null,
      affiliation: institutionName ? { name: institutionName, ror: rorUrl(institution?.ror) } : null,
    };
  }
  if (institutionName !== null) return organization(institutionName, rorUrl(institution?.ror));
  return null;
}

export function organization(name: string, ror: string | null = null): Party {
  return {
    nameType: 'Organizational',
    name,
    displayName: name,
    givenName: null,
    familyName: null,
    identifier: ror ? { scheme: 'ROR', url: ror } : null,
    affiliation: null,
  };
}

export function collectorParties(sample: SampleDto): Party[] {
  return sample.collectors.map(collectorParty).filter((party): party is Party => party !== null);
}

/**
 * Material as the DataCite mapping describes it: `general > specific` for each specific material
 * type when both exist, otherwise whichever labels are present.
 */
export function materialPaths(sample: SampleDto): string[] {
  const general = present(sample.general_material_type);
  const specific = presentAll(sample.material_types);
  if (general && specific.length) return specific.map((label) => `${general} > ${label}`);
  return general ? [general] : specific;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** English name of an ISO 3166-1 alpha-2 code (`US` → `United States`); the code when unknown. */
export function countryName(code: string | null): string | null {
  const value = present(code);
  if (value === null) return null;
  try {
    return regionNames.of(value.toUpperCase()) ?? value;
  } catch {
    return value;
  }
}

/** The named place of a sample, most specific first: locality, city, county, province, country. */
export function placeName(sample: SampleDto): string | null {
  const parts = presentAll([sample.locality, sample.city, sample.county, sample.province, countryName(sample.country)]);
  return parts.length ? parts.join(', ') : null;
}

/** A sampling date at its recorded precision: `2024`, `2024-06`, `2024-06-01` (default) or a UTC date-time. */
export function samplingDate(iso: string | null, precision: string | null): string | null {
  if (!iso) return null;
  switch (precision) {
    case 'year':
      return iso.slice(0, 4);
    case 'month':
      return iso.slice(0, 7);
    case 'time':
      return iso.replace(/\.\d+Z$/, 'Z');
    default:
      return iso.slice(0, 10);
  }
}

/** The collection period as an ISO 8601 interval (`start/end`), or the single date; `unknown/end` without a start. */
export function collectionPeriod(sample: SampleDto): string | null {
  const start = samplingDate(sample.sampling_start_date, sample.sampling_date_precision);
  const end = samplingDate(sample.sampling_end_date, sample.sampling_date_precision);
  if (start && end) return start === end ? start : `${start}/${end}`;
  if (end) return `unknown/${end}`;
  return start;
}

/** `2026-11-22T10:00:00.000Z` → `2026-11-22`. */
export function dateOnly(iso: string | null): string | null {
  return iso ? iso.slice(0, 10) : null;
}

/** `12 cm` from size and size unit. */
export function sizeText(sample: SampleDto): string | null {
  const size = present(sample.size);
  return size ? presentAll([size, sample.size_unit]).join(' ') : null;
}

/** `10 to 20 Ma`, `10 Ma`: a value or range with its unit. */
export function rangeText(
  low: number | null,
  high: number | null,
  unit: string | null | undefined,
  suffix?: string | null,
): string | null {
  const values = [low, high].filter((value): value is number => value !== null && value !== undefined);
  if (!values.length) return null;
  const range = values.length === 2 && low !== high ? `${low} to ${high}` : String(values[0]);
  return presentAll([range, unit, suffix ? `(${suffix})` : null]).join(' ');
}
