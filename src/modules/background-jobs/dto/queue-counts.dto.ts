import { ApiProperty } from '@nestjs/swagger';

export class QueueCountsDto {
  @ApiProperty({ example: 'batch-registration' })
  queue: string;

  @ApiProperty({ example: 0, description: 'Jobs waiting for a worker' })
  waiting: number;

  @ApiProperty({ example: 1, description: 'Jobs a worker is running' })
  active: number;

  @ApiProperty({ example: 0, description: 'Jobs waiting for a retry (back-off)' })
  delayed: number;

  @ApiProperty({ example: 0, description: 'Jobs whose last attempt failed (kept for inspection)' })
  failed: number;

  @ApiProperty({ example: 12, description: 'Completed jobs still kept (24 h, at most 1000)' })
  completed: number;
}

export class QueueCountsResponse {
  @ApiProperty({ type: [QueueCountsDto] })
  data: QueueCountsDto[];
}
