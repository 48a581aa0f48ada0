import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { expressTrustProxy } from '../config/trust-proxy';
import { ReadRoutingInterceptor, readContextWithoutStandbys } from '../database/read-replicas/read-routing.interceptor';
import { ReadRouting } from '../database/read-replicas/read-routing.service';
import { httpMetricsMiddleware } from '../metrics/http-metrics.middleware';
import { Metrics } from '../metrics/metrics';
import { metricsSource } from '../metrics/cluster-metrics';
import { metricsEndpoint } from '../metrics/metrics-endpoint';
import { OpenApiDocumentHolder } from '../openapi/openapi-document.holder';
import { buildOpenApiDocument } from '../openapi/openapi-document';
import { bodyParsers } from './body-parsers';
import { refuseNulCharacters } from './hostile-input';
import { PUBLIC_URL_SETTING } from './public-address';
import { requestIdMiddleware } from './request-id.middleware';
import { securityHeaders } from './security-headers';

export const API_PREFIX = 'api';
/** Deprecated v1 XML paths that live outside /api/. */
export const LEGACY_PATHS = ['webservices/upload.php', 'webservices/update.php'];
/** The OAI-PMH base URL's path (outside /api/: harvesters are given a base URL, not an API prefix). */
export const OAI_PATH = 'oai';
/**
 * Public pages outside /api/ (sample landing pages, where DOIs resolve, the sitemap, the account
 * pages and their assets) are served
 * by controllers mounted at /api/{PUBLIC_PAGES_MOUNT}/: excluding `samples/:igsn` from the global
 * prefix would also move the API's own `samples/:igsn` routes, as exclusion matches route paths.
 */
export const PUBLIC_PAGES_MOUNT = 'public-pages';
const PUBLIC_PAGE_URL = /^\/(?:samples\/|sitemap\.xml(?:$|\?)|sitemaps\/|assets\/)/;
/** The account pages (`/account/…`, `/staff/…`) take form posts as well as GETs. */
const ACCOUNT_PAGE_URL = /^\/(?:account|staff)(?:[/?]|$)/;
/** Routes that read their body as raw bytes (the legacy XML endpoints): the JSON and form parsers skip them. */
export const RAW_BODY_PATHS = [...LEGACY_PATHS, `${API_PREFIX}/samples/legacy-xml`].map((path) => `/${path}`);

/**
 * Everything the HTTP app needs beyond its modules, shared by main.ts and the e2e tests so the
 * tests exercise the real stack: request ids, security headers, CORS, body limits, the /api
 * prefix, the OpenAPI document and Swagger UI. Call before `init()`/`listen()`.
 */
export function configureHttpApp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  // No body-hashing ETag on every answer: reads that can be cached set a strong one from what decides
  // them (http-cache.ts), before the body is built.
  express.set('etag', false);
  // Never `true` (every hop): a hop count or the proxies' addresses (TRUST_PROXY, trust-proxy.ts).
  express.set('trust proxy', expressTrustProxy(config.http.trustProxy));
  express.set(PUBLIC_URL_SETTING, config.publicUrl);
  express.use(requestIdMiddleware);
  const metrics = app.get(Metrics);
  express.use(httpMetricsMiddleware(metrics));
  // Outside /api/ and Nest's guards: Prometheus authenticates with METRICS_TOKEN, not a user JWT.
  // Without a token configured, /metrics does not exist (404).
  const metricsToken = config.metrics.token;
  if (metricsToken) {
    const serveMetrics = metricsEndpoint(metrics.registry, metricsToken, metricsSource(metrics.registry));
    express
      .getHttpAdapter()
      .getInstance()
      .get('/metrics', (req: Request, res: Response, next: NextFunction) => {
        serveMetrics(req, res).catch(next);
      });
  }
  express.use(
    securityHeaders({
      // Swagger UI needs inline styles and images from data: URLs.
      contentSecurityPolicy: {
        directives: { 'img-src': ["'self'", 'data:'], 'style-src': ["'self'", "'unsafe-inline'"] },
      },
    }),
  );
  express.enableCors({
    origin: config.http.corsOrigins === '*' ? '*' : config.http.corsOrigins,
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'Deprecation', 'Link', 'Content-Disposition'],
    maxAge: 600,
  });
  express.use((req: Request, _res: Response, next: NextFunction) => {
    const read = req.method === 'GET' || req.method === 'HEAD';
    if ((read && PUBLIC_PAGE_URL.test(req.url)) || ACCOUNT_PAGE_URL.test(req.url)) {
      req.url = `/${API_PREFIX}/${PUBLIC_PAGES_MOUNT}${req.url}`;
    }
    next();
  });
  for (const parser of bodyParsers(config, RAW_BODY_PATHS)) express.use(parser);
  express.use(refuseNulCharacters);
  express.setGlobalPrefix(API_PREFIX, { exclude: [...LEGACY_PATHS, OAI_PATH] });
  // With standbys, an interceptor (after the guards: it knows the caller) runs the handler in its read
  // context. Without, the caller makes no difference and a middleware sets the context: a route with
  // no interceptor skips Nest's interceptor chain (an rxjs pipeline and two AsyncResource bindings).
  // From the configuration, not ReadRouting.enabled: the OpenAPI writer builds the app in preview mode.
  const routing = app.get(ReadRouting);
  if (config.database.readUrls.length > 0) app.useGlobalInterceptors(new ReadRoutingInterceptor(routing));
  else express.use(readContextWithoutStandbys(routing));

  const document = buildOpenApiDocument(app);
  app.get(OpenApiDocumentHolder).set(document);
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/docs/openapi.json`,
    customSiteTitle: 'Sample Registry API',
    swaggerOptions: { persistAuthorization: true },
  });
}
