import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../core/auth/public.decorator';
import { ApiBadRequestBody } from '../../core/http/api-error-responses';
import { SearchQueryDto } from './dto/search-query.dto';
import {
  AgentRoleTypeListResponse,
  CountryListResponse,
  GeologicTimeScaleListResponse,
  MaterialTypeListResponse,
  ObjectTypeListResponse,
  VocabularyTermListResponse,
  toAgentRoleTypeDto,
  toCountryDto,
  toGeologicTimeScaleDto,
  toMaterialTypeDto,
  toObjectTypeDto,
  toVocabularyTermDto,
} from './dto/vocabulary.dto';
import { TermVocabulary, VocabulariesService } from './vocabularies.service';

/**
 * Every vocabulary's paths: ours, then SESAR2's `vocab/<name>` (clients written against it read
 * them there). One table, so no vocabulary lacks its alias.
 */
export const VOCABULARY_PATHS = {
  countries: ['countries', 'vocab/countries'],
  agentRoleTypes: ['agent-role-types', 'vocab/agent-role-types'],
  objectTypes: ['object-types', 'vocab/object-types'],
  geologicTimeScales: ['geologic-time-scales', 'vocab/geologic-time-scales'],
  materialTypes: ['material-types', 'vocab/material-types'],
  locationMethods: ['location-methods', 'vocab/location-methods'],
  samplingMethods: ['sampling-methods', 'vocab/sampling-methods'],
  platformTypes: ['platform-types', 'vocab/platform-types'],
  launchTypes: ['launch-types', 'vocab/launch-types'],
} as const satisfies Record<string, readonly [string, string]>;

const SEARCH_NOTE =
  '`search`: case- and accent-insensitive substring of the label; exact matches first, then prefixes.';

const ApiSearchErrors = () =>
  ApiBadRequestBody({
    message: 'Validation failed: search.',
    errors: { search: ['search must be shorter than or equal to 200 characters'] },
  });

/** The seeded reference vocabularies; reads need no token. */
@ApiTags('vocabularies')
@Public()
@Controller()
export class VocabulariesController {
  constructor(private readonly vocabulariesService: VocabulariesService) {}

  @Get([...VOCABULARY_PATHS.countries])
  @ApiOperation({ summary: `Active countries (ISO 3166-1). ${SEARCH_NOTE} An exact ISO code matches too.` })
  @ApiOkResponse({ type: CountryListResponse })
  @ApiSearchErrors()
  async countries(@Query() query: SearchQueryDto): Promise<CountryListResponse> {
    return { data: (await this.vocabulariesService.countries(query.search)).map(toCountryDto) };
  }

  @Get([...VOCABULARY_PATHS.agentRoleTypes])
  @ApiOperation({ summary: `Agent role types (collector, registrant, owner…). ${SEARCH_NOTE}` })
  @ApiOkResponse({ type: AgentRoleTypeListResponse })
  @ApiSearchErrors()
  async agentRoleTypes(@Query() query: SearchQueryDto): Promise<AgentRoleTypeListResponse> {
    return { data: (await this.vocabulariesService.agentRoleTypes(query.search)).map(toAgentRoleTypeDto) };
  }

  @Get([...VOCABULARY_PATHS.objectTypes])
  @ApiOperation({
    summary: `The object-type tree, parents before children. Sample writes send the leaf \`label\`. ${SEARCH_NOTE}`,
  })
  @ApiOkResponse({ type: ObjectTypeListResponse })
  @ApiSearchErrors()
  async objectTypes(@Query() query: SearchQueryDto): Promise<ObjectTypeListResponse> {
    return { data: (await this.vocabulariesService.objectTypes(query.search)).map(toObjectTypeDto) };
  }

  @Get([...VOCABULARY_PATHS.geologicTimeScales])
  @ApiOperation({ summary: `Units of the ICS chronostratigraphic chart, bounds in Ma. ${SEARCH_NOTE}` })
  @ApiOkResponse({ type: GeologicTimeScaleListResponse })
  @ApiSearchErrors()
  async geologicTimeScales(@Query() query: SearchQueryDto): Promise<GeologicTimeScaleListResponse> {
    return { data: (await this.vocabulariesService.geologicTimeScales(query.search)).map(toGeologicTimeScaleDto) };
  }

  @Get([...VOCABULARY_PATHS.materialTypes])
  @ApiOperation({
    summary: `Material types; \`for_registration: false\` marks deprecated terms new samples may not use. ${SEARCH_NOTE}`,
  })
  @ApiOkResponse({ type: MaterialTypeListResponse })
  @ApiSearchErrors()
  async materialTypes(@Query() query: SearchQueryDto): Promise<MaterialTypeListResponse> {
    return { data: (await this.vocabulariesService.materialTypes(query.search)).map(toMaterialTypeDto) };
  }

  @Get([...VOCABULARY_PATHS.locationMethods])
  @ApiOperation({ summary: `How coordinates were determined. ${SEARCH_NOTE}` })
  @ApiOkResponse({ type: VocabularyTermListResponse })
  @ApiSearchErrors()
  locationMethods(@Query() query: SearchQueryDto): Promise<VocabularyTermListResponse> {
    return this.terms('location_method', query);
  }

  @Get([...VOCABULARY_PATHS.samplingMethods])
  @ApiOperation({ summary: `How samples were collected. ${SEARCH_NOTE}` })
  @ApiOkResponse({ type: VocabularyTermListResponse })
  @ApiSearchErrors()
  samplingMethods(@Query() query: SearchQueryDto): Promise<VocabularyTermListResponse> {
    return this.terms('sampling_method', query);
  }

  @Get([...VOCABULARY_PATHS.platformTypes])
  @ApiOperation({ summary: `Platform types (the \`platform_type\` of a platform). ${SEARCH_NOTE}` })
  @ApiOkResponse({ type: VocabularyTermListResponse })
  @ApiSearchErrors()
  platformTypes(@Query() query: SearchQueryDto): Promise<VocabularyTermListResponse> {
    return this.terms('platform_type', query);
  }

  @Get([...VOCABULARY_PATHS.launchTypes])
  @ApiOperation({ summary: `Launch types (the \`launch_type\` of a launch platform). ${SEARCH_NOTE}` })
  @ApiOkResponse({ type: VocabularyTermListResponse })
  @ApiSearchErrors()
  launchTypes(@Query() query: SearchQueryDto): Promise<VocabularyTermListResponse> {
    return this.terms('launch_type', query);
  }

  private async terms(vocabulary: TermVocabulary, query: SearchQueryDto): Promise<VocabularyTermListResponse> {
    return { data: (await this.vocabulariesService.terms(vocabulary, query.search)).map(toVocabularyTermDto) };
  }
}
