import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { AgentRoleType } from '../entities/agent-role-type.entity';
import { Country } from '../entities/country.entity';
import { GeologicTimeScale } from '../entities/geologic-time-scale.entity';
import { MaterialType } from '../entities/material-type.entity';
import { ObjectType } from '../entities/object-type.entity';

@ApiSchema({ name: 'Country' })
export class CountryDto {
  @ApiProperty({ type: 'integer', example: 225, readOnly: true })
  id: number;

  @ApiProperty({ example: "Côte d'Ivoire", readOnly: true })
  label: string;

  /** ISO 3166-1 alpha-2 code. */
  @ApiProperty({ example: 'CI', readOnly: true, nullable: true, type: String })
  iso3166code: string | null;
}

export class CountryListResponse {
  data: CountryDto[];
}

@ApiSchema({ name: 'AgentRoleType' })
export class AgentRoleTypeDto {
  @ApiProperty({ type: 'integer', example: 1, readOnly: true })
  id: number;

  @ApiProperty({ example: 'Collector', maxLength: 50, nullable: true, type: String })
  label: string | null;

  @ApiProperty({
    example: 'Person or organisation that collected the sample in the field.',
    nullable: true,
    type: String,
  })
  description: string | null;

  @ApiProperty({ example: 'DataCite Metadata Schema 4.6, contributorType DataCollector', nullable: true, type: String })
  source: string | null;
}

export class AgentRoleTypeListResponse {
  data: AgentRoleTypeDto[];
}

@ApiSchema({ name: 'ObjectType' })
export class ObjectTypeDto {
  @ApiProperty({ type: 'integer', example: 21, readOnly: true })
  id: number;

  /** The leaf label: what sample writes send as `object_type`. */
  @ApiProperty({ example: 'Thin section', maxLength: 50 })
  label: string;

  /** The full path from the root. */
  @ApiProperty({ example: 'Analytical preparations > Sectioned specimen > Thin section', readOnly: true })
  hierarchical_label: string;

  @ApiProperty({ example: 'Thin sliver of rock … mounted on a glass slide.', nullable: true, type: String })
  description: string | null;

  @ApiProperty({ example: null, maxLength: 255, nullable: true, type: String })
  uri: string | null;

  /** The parent's label; null for the top concepts. */
  @ApiProperty({ example: 'Sectioned specimen', readOnly: true, nullable: true, type: String })
  parent_type: string | null;

  @ApiProperty({ example: null, maxLength: 50, nullable: true, type: String })
  scheme_name: string | null;

  @ApiProperty({ example: null, maxLength: 255, nullable: true, type: String })
  scheme_uri: string | null;
}

export class ObjectTypeListResponse {
  data: ObjectTypeDto[];
}

@ApiSchema({ name: 'GeologicTimeScale' })
export class GeologicTimeScaleDto {
  @ApiProperty({ type: 'integer', example: 64, readOnly: true })
  id: number;

  @ApiProperty({ example: 'Cretaceous', maxLength: 50 })
  label: string;

  @ApiProperty({ example: null, nullable: true, type: String })
  description: string | null;

  @ApiProperty({
    example: 'http://resource.geosciml.org/classifier/ics/ischart/Cretaceous',
    maxLength: 255,
    nullable: true,
    type: String,
  })
  geologic_time_interval_uri: string | null;

  @ApiProperty({
    example: 'ICS International Chronostratigraphic Chart v2024-12',
    maxLength: 255,
    nullable: true,
    type: String,
  })
  source: string | null;

  @ApiProperty({
    example: 'http://resource.geosciml.org/classifier/ics/ischart/',
    maxLength: 255,
    nullable: true,
    type: String,
  })
  scheme_uri: string | null;

  /** Older bound in Ma. */
  @ApiProperty({ example: 143.1, format: 'double', nullable: true, type: Number })
  numeric_older_bound: number | null;

  /** Younger bound in Ma. */
  @ApiProperty({ example: 66, format: 'double', nullable: true, type: Number })
  numeric_younger_bound: number | null;

  @ApiProperty({ example: 'K', maxLength: 32, nullable: true, type: String })
  notation: string | null;
}

export class GeologicTimeScaleListResponse {
  data: GeologicTimeScaleDto[];
}

/** A term of a flat vocabulary: material types, location and sampling methods, platform and launch types. */
@ApiSchema({ name: 'VocabularyTerm' })
export class VocabularyTermDto {
  @ApiProperty({ type: 'integer', example: 3, readOnly: true })
  id: number;

  @ApiProperty({ example: 'Rock', maxLength: 255 })
  label: string;

  @ApiProperty({ example: 'Consolidated aggregate of minerals or mineraloids.', nullable: true, type: String })
  description: string | null;

  @ApiProperty({ example: null, maxLength: 255, nullable: true, type: String })
  uri: string | null;
}

export class VocabularyTermListResponse {
  data: VocabularyTermDto[];
}

@ApiSchema({ name: 'MaterialType' })
export class MaterialTypeDto extends VocabularyTermDto {
  /** False for a deprecated term: kept on migrated samples and accepted from legacy XML, refused in new writes. */
  @ApiProperty({ example: true })
  for_registration: boolean;
}

export class MaterialTypeListResponse {
  data: MaterialTypeDto[];
}

export function toMaterialTypeDto(term: MaterialType): MaterialTypeDto {
  return { ...toVocabularyTermDto(term), for_registration: term.forRegistration };
}

export function toCountryDto(country: Country): CountryDto {
  return { id: country.id, label: country.label, iso3166code: country.iso3166code };
}

export function toAgentRoleTypeDto(role: AgentRoleType): AgentRoleTypeDto {
  return { id: role.id, label: role.label, description: role.description, source: role.source };
}

/** `objectType.parent` must be loaded. */
export function toObjectTypeDto(objectType: ObjectType): ObjectTypeDto {
  return {
    id: objectType.id,
    label: objectType.label,
    hierarchical_label: objectType.hierarchicalLabel,
    description: objectType.description,
    uri: objectType.uri,
    parent_type: objectType.parent?.label ?? null,
    scheme_name: objectType.schemeName,
    scheme_uri: objectType.schemeUri,
  };
}

export function toGeologicTimeScaleDto(unit: GeologicTimeScale): GeologicTimeScaleDto {
  return {
    id: unit.id,
    label: unit.label,
    description: unit.description,
    geologic_time_interval_uri: unit.geologicTimeIntervalUri,
    source: unit.source,
    scheme_uri: unit.schemeUri,
    numeric_older_bound: unit.numericOlderBound,
    numeric_younger_bound: unit.numericYoungerBound,
    notation: unit.notation,
  };
}

export function toVocabularyTermDto(term: {
  id: number;
  label: string;
  description: string | null;
  uri: string | null;
}): VocabularyTermDto {
  return { id: term.id, label: term.label, description: term.description, uri: term.uri };
}
