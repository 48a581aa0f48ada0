import { PLAIN_SAMPLE_FIELDS } from './sample-fields';

/**
 * A sample read back as the flat columns of a batch workbook: one SQL expression per workbook key
 * over FLAT_SAMPLE_JOINS (alias `s` is the sample). Empty values (NULL, '', empty lists) are NULL,
 * so "the same on every sample" and "differs" can be decided by the database on the values a
 * curator reads. Only SampleRepository runs these.
 */
export type FlatValueFormat = 'text' | 'number' | 'date' | 'igsn';

export interface FlatColumnSql {
  sql: string;
  format: FlatValueFormat;
}

/** How a workbook field is typed (BatchField.kind). */
export type FlatFieldKind = 'number' | 'date' | 'list' | 'igsn' | 'text';

const text = (sql: string) => ({ sql: `NULLIF(${sql}, '')`, format: 'text' as const });
const list = (sql: string) => ({ sql: `NULLIF(array_to_string(${sql}, '; '), '')`, format: 'text' as const });

/** Keys that are not a plain sample column of the same name, or read otherwise (the registry code is never empty). */
const SPECIAL: Record<string, FlatColumnSql> = {
  object_type: { sql: 'ot.label', format: 'text' },
  igsn: { sql: 's.igsn', format: 'igsn' },
  // A scalar subquery on the primary key: one index probe per row whatever the statistics say.
  parent_sample: { sql: '(SELECT ps.igsn FROM sample ps WHERE ps.id = s.parent_sample_id)', format: 'igsn' },
  registry_code: { sql: 's.registry_code', format: 'text' },
  collector: { sql: 'col.labels', format: 'text' },
  collector_detail: { sql: 'col.details', format: 'text' },
  platform_label: text('p.label'),
  platform_type: text('pt.label'),
  platform_description: text('p.description'),
  launch_platform_label: text('lp.label'),
  launch_type: text('lt.label'),
  current_archive: text('ca.label'),
  original_archive: text('oa.label'),
  related_resource_uri: { sql: 'rel.uris', format: 'text' },
  related_resource_description: { sql: 'rel.descriptions', format: 'text' },
};

/** Workbook keys stored as a sample column of the same name: the catalogue's plain batch fields. */
const PLAIN_COLUMNS = new Set<string>(PLAIN_SAMPLE_FIELDS.filter((field) => field.batch).map((field) => field.key));

/** The SQL of a workbook key, or undefined when the sample has no column for it. */
export function flatColumnSql(key: string, kind: FlatFieldKind): FlatColumnSql | undefined {
  const special = SPECIAL[key];
  if (special) return special;
  if (!PLAIN_COLUMNS.has(key)) return undefined;
  switch (kind) {
    case 'number':
      return { sql: `s.${key}`, format: 'number' };
    case 'date':
      return { sql: `s.${key}`, format: 'date' };
    case 'list':
      return list(`s.${key}`);
    case 'igsn':
      return { sql: `s.${key}`, format: 'igsn' };
    case 'text':
      return text(`s.${key}`);
  }
}

/**
 * The sample's labelled references, each by primary key (aliases ot, p, pt, lp, lt, ca, oa): shared
 * by the sample JSON (SampleRepository) and the flat columns.
 */
export const SAMPLE_VOCABULARY_JOINS = `
    LEFT JOIN object_type ot ON ot.id = s.object_type_id
    LEFT JOIN platform p ON p.id = s.platform_id
    LEFT JOIN platform_type pt ON pt.id = p.platform_type_id
    LEFT JOIN launch_platform lp ON lp.id = s.launch_platform_id
    LEFT JOIN launch_type lt ON lt.id = lp.launch_type_id
    LEFT JOIN archive ca ON ca.id = s.current_archive_id
    LEFT JOIN archive oa ON oa.id = s.original_archive_id`;

/**
 * The joins the expressions need. Collectors and related links are flattened per sample in lateral
 * subqueries, in their stored order: collector labels (the individual's, else the institution's)
 * and details, link URIs and descriptions, each joined with "; ".
 */
export const FLAT_SAMPLE_JOINS = `${SAMPLE_VOCABULARY_JOINS}
    LEFT JOIN LATERAL (
      SELECT NULLIF(string_agg(NULLIF(COALESCE(i.label, inst.label), ''), '; ' ORDER BY sc.position), '') AS labels,
             NULLIF(string_agg(NULLIF(c.description, ''), '; ' ORDER BY sc.position), '') AS details
        FROM sample_collector sc
        JOIN collector c ON c.id = sc.collector_id
        LEFT JOIN individual i ON i.id = c.individual_id
        LEFT JOIN institution inst ON inst.id = c.institution_id
       WHERE sc.sample_id = s.id
    ) col ON true
    LEFT JOIN LATERAL (
      SELECT NULLIF(string_agg(NULLIF(r.item->>'uri', ''), '; ' ORDER BY r.n), '') AS uris,
             NULLIF(string_agg(NULLIF(r.item->>'description', ''), '; ' ORDER BY r.n), '') AS descriptions
        FROM jsonb_array_elements(s.related_resources) WITH ORDINALITY AS r(item, n)
    ) rel ON true`;
