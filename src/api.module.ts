import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AppConfig } from './core/config/app-config';
import { CoreModule } from './core/core.module';
import { HealthModule } from './core/health/health.module';
import { ContentTypeGuard } from './core/http/content-type.guard';
import { HttpExceptionFilter } from './core/http/http-exception.filter';
import { createValidationPipe } from './core/http/validation';
import { OpenApiModule } from './core/openapi/openapi.module';
import { FEATURE_MODULES } from './feature-modules';

/** The HTTP API: core plumbing, feature modules and the global pipe, filter and guards. */
@Module({})
export class ApiModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [CoreModule.forRoot(config), HealthModule, OpenApiModule, ...FEATURE_MODULES],
      providers: [
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_GUARD, useClass: ContentTypeGuard },
        // The read-routing interceptor is global only where standbys exist (configureHttpApp).
      ],
    };
  }
}
