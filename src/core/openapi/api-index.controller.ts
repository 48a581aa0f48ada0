import { Controller, Get } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';
import { ErrorBody } from '../http/error-body';

class ApiIndexLinks {
  /** The OpenAPI document (JSON; `?format=yaml` for YAML). */
  @ApiProperty({ example: '/api/schema' })
  schema: string;

  /** Swagger UI over that document. */
  @ApiProperty({ example: '/api/docs' })
  docs: string;

  /** Liveness. */
  @ApiProperty({ example: '/api/health/' })
  health: string;

  /** Readiness: PostgreSQL and Redis answer. */
  @ApiProperty({ example: '/api/health/ready/' })
  ready: string;

  /** The sample search, the usual first call. */
  @ApiProperty({ example: '/api/samples/' })
  samples: string;
}

class ApiIndex {
  @ApiProperty({ example: 'Sample Registry API' })
  name: string;

  @ApiProperty({ type: ApiIndexLinks })
  links: ApiIndexLinks;
}

export class ApiIndexResponse {
  data: ApiIndex;
}

const INDEX: ApiIndexResponse = {
  data: {
    name: 'Sample Registry API',
    links: {
      schema: '/api/schema',
      docs: '/api/docs',
      health: '/api/health/',
      ready: '/api/health/ready/',
      samples: '/api/samples/',
    },
  },
};

/** `GET /api/`: where to go from the API's root, instead of a 404. */
@ApiTags('health')
@Public()
@Controller()
export class ApiIndexController {
  @Get()
  @ApiOperation({ summary: 'The API root: links to the OpenAPI document, its viewer, health and the sample search.' })
  @ApiOkResponse({ type: ApiIndexResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    description: 'A request every route refuses, e.g. a NUL character in the URL.',
  })
  index(): ApiIndexResponse {
    return INDEX;
  }
}
