/**
 * The samples core's public API: what other modules may import from samples/ (the lint rule in
 * .dependency-cruiser.cjs holds them to this file, and to samples.module.ts for Nest's module wiring).
 * Everything else under samples/ is the core's own business and may change without notice.
 */
export { SampleDoiStatus, sampleDoiStatus } from './dto/sample-doi-status.dto';
export {
  CreateSampleDto,
  DeactivateSampleDto,
  SAMPLE_READ_ONLY_FIELDS,
  SEARCH_SCOPES,
  UpdateSampleDto,
  reviveCreateSampleDto,
} from './dto/sample-write.dto';
export {
  SampleArchive,
  SampleCollector,
  SampleDto,
  SampleLaunchPlatform,
  SamplePlatform,
  SampleRelatedResource,
  SampleResponse,
} from './dto/sample.dto';
export { SearchSamplesQueryDto } from './dto/search-samples-query.dto';
export { IgsnMinter } from './igsn-minter';
export type { MintOptions } from './igsn-minter';
export { ApiIgsnPath } from './igsn-path.openapi';
export { IgsnService } from './igsn.service';
export { LineageNode } from './lineage/sample-lineage.dto';
export { SampleLineageService } from './lineage/sample-lineage.service';
export { SampleOwnershipRepository } from './ownership/sample-ownership.repository';
export type { NewOwner, OwnedSelection } from './ownership/sample-ownership.repository';
export { QR_QUIET_ZONE, qrCodePath, sampleResolvableUrl } from './qr/sample-qr-code';
export {
  RELATED_RESOURCE_TYPES,
  URI_TYPES,
  inferredUriType,
  termOf,
  uriProblem,
} from './related-resources/related-resource-terms';
export type { UriType } from './related-resources/related-resource-terms';
export { RelatedResourceObject } from './related-resources/related-resource.entity';
export { RELATED_RESOURCE_ORDERINGS, RelatedResourceRepository } from './related-resources/related-resource.repository';
export type { RelatedResourceOrdering } from './related-resources/related-resource.repository';
export { SampleAccessPolicy } from './sample-access.policy';
export type { SampleAccessFacts, SampleCaller } from './sample-access.policy';
export { SampleCurationRepository } from './sample-curation.repository';
export { SAMPLE_FIELDS, VOCABULARY_ENDPOINTS, normalizedHeader, sampleFieldLabel } from './sample-fields';
export type { SampleField, SampleFieldType, SampleVocabulary } from './sample-fields';
export { flatColumnSql } from './sample-flat-columns';
export type { FlatColumnSql, FlatValueFormat } from './sample-flat-columns';
export { SampleHarvestRepository } from './sample-harvest.repository';
export type { HarvestHeader } from './sample-harvest.repository';
export { sampleLandingPath, sampleLandingUrl } from './sample-landing-address';
export { PARENT_NEEDS_EDIT, refusedParentLinks } from './sample-lineage';
export type { ParentLink } from './sample-lineage';
export { SamplePublicRepository } from './sample-public.repository';
export type { SitemapEntry } from './sample-public.repository';
export { SampleReferences } from './sample-references';
export type { SampleReferenceLookups } from './sample-references';
export { SAMPLE_FILTER_DOCS, SEARCH_LIST_FILTERS, SEARCH_VALUE_FILTERS } from './sample-search';
export type { SampleFilterName, SampleSearchQuery } from './sample-search';
export { SampleSearchService } from './sample-search.service';
export type { SampleSearchCondition } from './sample-search.service';
export { SampleSelectionRepository } from './sample-selection.repository';
export type { SampleCursor } from './sample-selection.repository';
export { SampleWriteRepository } from './sample-write.repository';
export type { BatchSampleChange } from './sample-write.repository';
export { DATE_PRECISIONS, DEACTIVATE_REASONS, LENGTH_UNITS, Sample } from './sample.entity';
export type { StoreStatus } from './sample.entity';
export { SampleMapper, accessFacts } from './sample.mapper';
export type { SampleRow } from './sample.mapper';
export { SampleRepository } from './sample.repository';
export { TEXT_APPEND_SEPARATOR } from './write/sample-write.context';
export type { ResolvedWrite } from './write/sample-write.context';
export { SampleWriter } from './write/sample-writer';
