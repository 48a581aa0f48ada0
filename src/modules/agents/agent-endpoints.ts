import { Type, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import {
  ApiBadRequestBody,
  ApiConflictBody,
  ApiForbiddenBody,
  ApiListErrors,
  ApiNotFoundBody,
  ApiUnauthorizedBody,
} from '../../core/http/api-error-responses';
import { parsePathId } from '../../core/http/row-id';

/**
 * The documentation of the four endpoints individuals, institutions and archives share (list, one,
 * create, correct): the same answers, told once. Each controller names its record, the example id of
 * its documentation, its types and the texts that differ; routes and access rules stay on its methods
 * (the swagger plugin reads the route decorator there to document the success status).
 */
export interface AgentRecord {
  /** `individual`, `institution`, `archive`. */
  noun: string;
  /** The id the documentation's examples use. */
  exampleId: number;
}

type ErrorExample = { message: string; errors: Record<string, string[]> };

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `Individual 31 not found.`: the 404 of an unknown or malformed id. */
const notFound = (record: AgentRecord, id: string | number) => `${capitalised(record.noun)} ${id} not found.`;

/** The id in `/{records}/{id}`, or the record's 404 when it is not a row id. */
export function agentPathId(record: AgentRecord, rawId: string): number {
  return parsePathId(rawId, notFound(record, rawId));
}

/** GET /{records}/?search=&limit= */
export const ApiListAgents = (summary: string, type: Type) =>
  applyDecorators(ApiOperation({ summary }), ApiOkResponse({ type }), ApiListErrors());

/** GET /{records}/{id} */
export const ApiGetAgent = (record: AgentRecord, type: Type) =>
  applyDecorators(
    ApiOperation({ summary: `One ${record.noun}.` }),
    ApiParam({ name: 'id', type: 'integer', example: record.exampleId }),
    ApiOkResponse({ type }),
    ApiNotFoundBody(notFound(record, record.exampleId)),
  );

/** POST /{records}/: any signed-in caller. */
export const ApiCreateAgent = (
  summary: string,
  type: Type,
  answers: { badRequest: ErrorExample; conflict?: ErrorExample },
) =>
  applyDecorators(
    ApiBearerAuth('bearer'),
    ApiOperation({ summary }),
    ApiCreatedResponse({ type }),
    ApiBadRequestBody(answers.badRequest),
    ApiUnauthorizedBody(),
    ...(answers.conflict ? [ApiConflictBody(answers.conflict)] : []),
  );

/** PATCH /{records}/{id}: who may edit the record (`can_edit`). */
export const ApiUpdateAgent = (record: AgentRecord, type: Type, conflict: ErrorExample) =>
  applyDecorators(
    ApiBearerAuth('bearer'),
    ApiOperation({
      summary:
        `Correct an ${record.noun}: the fields sent replace the stored ones. Only callers who may edit it (\`can_edit\`: ` +
        'its creator, staff, admins).',
    }),
    ApiParam({ name: 'id', type: 'integer', example: record.exampleId }),
    ApiOkResponse({ type }),
    ApiBadRequestBody({
      message: 'Invalid country: unknown country "Narnia".',
      errors: { country: ['unknown country'] },
    }),
    ApiUnauthorizedBody(),
    ApiForbiddenBody(`You may not edit this ${record.noun}.`),
    ApiNotFoundBody(notFound(record, record.exampleId)),
    ApiConflictBody(conflict),
  );
