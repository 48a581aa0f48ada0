import { applyDecorators } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';

/** A sample's two path spellings in OpenAPI: `{igsn}`, or its DOI form as `{prefix}/{suffix}`. */
export const ApiIgsnPath = (): MethodDecorator =>
  applyDecorators(
    ApiParam({ name: 'igsn', description: 'e.g. IEABC0001 (the DOI form 10.5072/IEABC0001 also works)' }),
    ApiParam({ name: 'prefix', description: 'The DOI prefix of the IGSN, e.g. 10.5072' }),
    ApiParam({ name: 'suffix', description: 'The IGSN after its DOI prefix, e.g. IEABC0001' }),
  );
