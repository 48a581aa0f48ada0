/**
 * How people and organisations are told apart: an identifier decides (ORCID for individuals, ROR
 * for institutions); a name alone matches only an unambiguous record. The statements that apply it
 * are AgentRepository's.
 */
export interface AgentIdentifier {
  /** The table (a trusted constant). */
  table: 'individual' | 'institution';
  /** The column holding the identifier. */
  column: 'individual_uri' | 'ror';
  /** The API field name of the identifier. */
  field: string;
  /**
   * SQL: the comparable form of an identifier expression. Applied to the column it must stay the
   * expression of migration 1763901000000's index, or lookups stop using it.
   */
  key: (sql: string) => string;
}

/** `https://orcid.org/0000-0002-1825-0097`, `orcid.org/…` and the bare iD are one person; other URIs compare as text. */
export const ORCID: AgentIdentifier = {
  table: 'individual',
  column: 'individual_uri',
  field: 'individual_uri',
  key: (sql) =>
    `COALESCE(substring(upper(${sql}) from '[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]'), lower(btrim(${sql})))`,
};

/** `https://ror.org/00hj8s172` and `00hj8s172` are one organisation. */
export const ROR: AgentIdentifier = {
  table: 'institution',
  column: 'ror',
  field: 'ror',
  key: (sql) => `lower(regexp_replace(btrim(${sql}), '^(https?://)?(www[.])?ror[.]org/', '', 'i'))`,
};
