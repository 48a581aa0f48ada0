import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { withTimeout } from '../async/with-timeout';
import { Public } from '../auth/public.decorator';
import { Standbys } from '../database/read-replicas/standbys';
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
    private readonly standbys: Standbys,
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
      'Readiness: PostgreSQL and Redis both answer. 503 names the dependency that is down, or says the process is shutting down. ' +
      'Streaming standbys (DATABASE_READ_URLS) are listed as `standby <host:port>`: `up`, or why they take no reads — never a 503, as reads fall back to the primary.',
  })
  @ApiOkResponse({ type: HealthResponse })
  @ApiServiceUnavailableResponse({
    type: ErrorBody,
    example: {
      message: 'Not ready: redis is unavailable.',
      errors: { redis: ['connect ECONNREFUSED 127.0.0.1:6379'] },
    },
  })
  async ready(): Promise<HealthResponse> {
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
        Object.fromEntries(failures.map(([name, problem]) => [name, [problem ?? 'unavailable']])),
      );
    }
    const answer: Record<string, string> = Object.fromEntries(results.map(([name]) => [name, 'up']));
    for (const standby of this.standbys.statuses()) {
      answer[`standby ${standby.name}`] = standby.usable ? 'up' : `no reads: ${standby.problem ?? 'unavailable'}`;
    }
    return { data: { status: 'ok', checks: answer } };
  }
}
