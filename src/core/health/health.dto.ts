import { ApiProperty } from '@nestjs/swagger';

export class HealthStatus {
  @ApiProperty({ example: 'ok' })
  status: 'ok';

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { database: 'up', redis: 'up' },
  })
  checks: Record<string, string>;
}

export class HealthResponse {
  data: HealthStatus;
}
