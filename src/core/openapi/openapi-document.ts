import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export const API_VERSION = '1.0.0';

/** Recursively orders object keys so the committed document only changes when the API does. */
export function sortKeysDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => sortKeysDeep(item)) as T;
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
    return sorted as T;
  }
  return value;
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Sample Registry API')
    .setDescription(
      'Register, curate, search and publish records of physical samples identified by IGSNs. ' +
        'Every error answers `{message, errors}`; `errors` maps field paths to messages. ' +
        'Write operations need `Authorization: Bearer <access token>`.',
    )
    .setVersion(API_VERSION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    // Relative: the document describes whichever deployment serves it.
    .addServer('/')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) =>
      `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  return sortKeysDeep(fitAliasedRoutes(document));
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * A handler mapped to several paths (e.g. `/samples/{igsn}` and `/samples/{prefix}/{suffix}`)
 * gets one set of decorators, and Nest names its operations `X[0]`, `X[1]`. Client generators need
 * each operation to declare exactly the path parameters of its own template and an identifier as
 * its id, so: path parameters not in the template are dropped (the handler documents every
 * spelling with `@ApiParam`), and `X[0]` becomes `X`, `X[n]` becomes `X_<path words>`.
 */
export function fitAliasedRoutes(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    const templateParams = new Set([...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]));
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (operation.parameters) {
        operation.parameters = operation.parameters.filter(
          (parameter) => !('in' in parameter) || parameter.in !== 'path' || templateParams.has(parameter.name),
        );
      }
      const aliased = /^(.*)\[(\d+)\]$/.exec(operation.operationId ?? '');
      if (aliased) operation.operationId = aliased[2] === '0' ? aliased[1] : `${aliased[1]}_${pathWords(path)}`;
    }
  }
  return document;
}

/** `/api/samples/{prefix}/{suffix}` → `samplesPrefixSuffix`. */
function pathWords(path: string): string {
  const words = path
    .replace(/^\/api\//, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words.map((word, index) => (index === 0 ? word : word[0].toUpperCase() + word.slice(1))).join('');
}

/** The document as committed in openapi/openapi.json: sorted, two-space indented, final newline. */
export function serializeOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(sortKeysDeep(document), null, 2)}\n`;
}
