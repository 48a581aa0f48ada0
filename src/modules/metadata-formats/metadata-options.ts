/** What the serializers need to know about the registry itself, beyond the sample. */
export interface MetadataFormatOptions {
  /** Name of the publishing registry: DataCite `publisher`, schema.org `publisher`, creator of last resort. */
  publisher: string;
  /**
   * Absolute base URL of the registry (`https://registry.example.org`), for the landing URL of a
   * sample in JSON-LD. Omitted, the document carries only the DOI.
   */
  baseUrl?: string;
  /** Rights statement for the record (DataCite `rightsList`); omitted when the registry has none. */
  rights?: { statement: string; uri?: string; identifier?: string; identifierScheme?: string };
}

/**
 * The publisher name used until the registry's name becomes configuration. The landing page and
 * publisher of a record are properties of the installation, not of a sample.
 */
export const REGISTRY_PUBLISHER = 'Sample Registry';
