import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { withTimeout } from '../async/with-timeout';
import { AuthenticatedUser, CurrentUser } from '../auth/authenticated-user';
import { Public } from '../auth/public.decorator';
import { ApiError } from '../http/api-error';
import { ErrorBody } from '../http/error-body';
import { REDIS_CLIENT } from '../redis/redis.module';
import { DrainState } from './drain-state';
import { HealthResponse } from './health.dto';

const CHECK_TIMEOUT_MS = 2000;

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly drain: DrainState,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Liveness: the process is up and serving requests.' })
  @ApiOkResponse({ type: HealthResponse })
  live(): HealthResponse {
    return { data: { status: 'ok', checks: {} } };
  }

  @Get('ready')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Readiness: PostgreSQL and Redis both answer. 503 names the dependency that is down (the driver error only to staff), or says the process is shutting down.',
  })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({
    type: ErrorBody,
    example: {
      message: 'Not ready: redis is unavailable.',
      errors: { redis: ['down'] },
    },
  })
  async ready(@CurrentUser() caller?: AuthenticatedUser): Promise<HealthResponse> {
    if (this.drain.draining) {
      throw ApiError.serviceUnavailable('Not ready: this API process is shutting down.', {
        process: ['draining before shutdown'],
      });
    }
    const checks = {
      database: () => this.dataSource.query('SELECT 1'),
      redis: () => this.redis.ping(),
    };
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS, name);
          return [name, null] as const;
        } catch (error) {
          return [name, error instanceof Error ? error.message : String(error)] as const;
        }
      }),
    );
    const failures = results.filter(([, problem]) => problem !== null);
    if (failures.length) {
      const names = failures.map(([name]) => name);
      throw ApiError.serviceUnavailable(
        `Not ready: ${names.join(' and ')} ${names.length > 1 ? 'are' : 'is'} unavailable.`,
        // Driver errors name hosts, ports and versions: only staff see them; anyone else, up or down.
        Object.fromEntries(
          failures.map(([name, problem]) => [
            name,
            [caller?.isStaff || caller?.isAdmin ? (problem ?? 'down') : 'down'],
          ]),
        ),
      );
    }
    return { data: { status: 'ok', checks: Object.fromEntries(results.map(([name]) => [name, 'up'])) } };
  }
}
