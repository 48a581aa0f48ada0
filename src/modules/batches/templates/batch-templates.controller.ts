import { Body, Controller, Get, Param, Patch, Post, Query, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../../core/auth/authenticated-user';
import { ApiError } from '../../../core/http/api-error';
import { ApiBadRequestBody, ApiNotFoundBody, ApiUnauthorizedBody } from '../../../core/http/api-error-responses';
import { ErrorBody } from '../../../core/http/error-body';
import { parsePathId } from '../../../core/http/row-id';
import { Public } from '../../../core/auth/public.decorator';
import { BatchTemplatesService } from './batch-templates.service';
import { SAMPLE_FIELD_LIST, SampleFieldListResponse } from './dto/sample-field.dto';
import { CreateBatchTemplateDto, UpdateBatchTemplateDto } from './dto/batch-template-write.dto';
import { BatchTemplateListResponse, BatchTemplateResponse } from './dto/batch-template.dto';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NOT_FOUND = 'Batch template not found.';

const INVALID = {
  message: 'Validation failed: label, selected_fields.2.',
  errors: {
    label: ['label must be shorter than or equal to 255 characters'],
    'selected_fields.2': ['unknown field "colour"; use a key of the batch field catalog'],
  },
};

/** `?is_archived=true|false`; absent: both. */
function parseArchivedFilter(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw ApiError.invalidField('is_archived', 'must be true or false');
}

@ApiTags('batch-templates')
@ApiExtraModels(ErrorBody)
@ApiBearerAuth('bearer')
@ApiUnauthorizedBody()
@Controller('batch-templates')
export class BatchTemplatesController {
  constructor(private readonly batchTemplatesService: BatchTemplatesService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's batch templates and those of their teams (staff: all), newest first.",
  })
  @ApiQuery({ name: 'is_archived', required: false, enum: ['true', 'false'] })
  @ApiOkResponse({ type: BatchTemplateListResponse })
  @ApiBadRequestBody({
    message: 'Invalid is_archived: must be true or false.',
    errors: { is_archived: ['must be true or false'] },
  })
  async list(
    @Query('is_archived') isArchived: unknown,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchTemplateListResponse> {
    return { data: await this.batchTemplatesService.list(user, { isArchived: parseArchivedFilter(isArchived) }) };
  }

  @Post()
  @ApiOperation({
    summary:
      'Create a batch template: its optional columns (selected_fields), registry code, object type and the ' +
      'presets its dropdowns offer. A registry code owned by a team makes the team an owner.',
  })
  @ApiCreatedResponse({ type: BatchTemplateResponse })
  @ApiBadRequestBody(INVALID)
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'You may not use registry code IEXYZ.', errors: {} },
  })
  async create(
    @Body() body: CreateBatchTemplateDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchTemplateResponse> {
    return { data: await this.batchTemplatesService.create(body, user) };
  }

  @Get('fields')
  @Public()
  @ApiOperation({
    summary:
      'The field catalogue: every spreadsheet column (template, upload, CSV and xlsx export) with its key ' +
      '(the JSON API name), label, type, vocabulary endpoint and the other headers uploads accept. No token needed.',
  })
  @ApiOkResponse({ type: SampleFieldListResponse })
  fields(): SampleFieldListResponse {
    return { data: SAMPLE_FIELD_LIST };
  }

  @Get(':id')
  @ApiOperation({ summary: 'A batch template the caller can see (owner, owning team, staff).' })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiOkResponse({ type: BatchTemplateResponse })
  @ApiNotFoundBody(NOT_FOUND)
  async read(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<BatchTemplateResponse> {
    return { data: await this.batchTemplatesService.read(parsePathId(id, NOT_FOUND), user) };
  }

  @Patch(':id')
  @ApiOperation({
    summary:
      'Update a batch template (owner, team editor or manager, staff): send only the fields to change; ' +
      'lists sent replace the stored lists. Every update bumps the version.',
  })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiOkResponse({ type: BatchTemplateResponse })
  @ApiBadRequestBody(INVALID)
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'You may not edit this batch template.', errors: {} },
  })
  @ApiNotFoundBody(NOT_FOUND)
  async update(
    @Param('id') id: string,
    @Body() body: UpdateBatchTemplateDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchTemplateResponse> {
    return { data: await this.batchTemplatesService.update(parsePathId(id, NOT_FOUND), body, user) };
  }

  @Get(':id/spreadsheet')
  @ApiOperation({
    summary:
      'The template workbook (.xlsx) to fill in and upload: Samples sheet with the template’s columns, ' +
      'dropdowns for controlled vocabularies and presets, and hidden Metadata (registry code, object type, ' +
      'template id and version).',
  })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiProduces(XLSX_TYPE)
  @ApiOkResponse({
    description: 'The workbook, as an attachment.',
    content: { [XLSX_TYPE]: { schema: { type: 'string', format: 'binary' } } },
  })
  // Explicit content: @ApiProduces would otherwise label the JSON error body as a workbook.
  @ApiNotFoundResponse({
    description: 'No such template, or the caller cannot see it.',
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorBody) },
        example: { message: NOT_FOUND, errors: {} },
      },
    },
  })
  async spreadsheet(
    @Param('id') id: string,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { filename, content } = await this.batchTemplatesService.spreadsheet(parsePathId(id, NOT_FOUND), user);
    res.setHeader('Content-Type', XLSX_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Content-Length', String(content.length));
    return new StreamableFile(content);
  }
}
