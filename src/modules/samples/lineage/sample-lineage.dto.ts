import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

export const LINEAGE_DIRECTIONS = ['ancestors', 'descendants', 'both'] as const;
export type LineageDirection = (typeof LINEAGE_DIRECTIONS)[number];
/** Levels a lineage may walk in each direction. */
export const LINEAGE_MAX_DEPTH = 20;
/** Nodes one lineage answer holds at most (the sample itself not counted); beyond, `truncated`. */
export const LINEAGE_MAX_NODES = 10_000;
export const LINEAGE_DEFAULT_DEPTH = 5;

export class SampleLineageQuery {
  /** Parents (`ancestors`), children (`descendants`) or both. */
  @ApiPropertyOptional({ enum: LINEAGE_DIRECTIONS, default: 'both' })
  @IsOptional()
  @IsIn(LINEAGE_DIRECTIONS, { message: `direction must be one of ${LINEAGE_DIRECTIONS.join(', ')}` })
  direction?: LineageDirection;

  /** Levels to walk in each direction. */
  @ApiPropertyOptional({ minimum: 1, maximum: LINEAGE_MAX_DEPTH, default: LINEAGE_DEFAULT_DEPTH })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'depth must be a whole number' })
  @Min(1)
  @Max(LINEAGE_MAX_DEPTH)
  depth?: number;
}

/**
 * A sample in a lineage. One the caller may not see is `{visible: false}`: none of its fields,
 * only its place in the tree (and its children, when the walk goes on below it).
 */
export class LineageNode {
  @ApiProperty({ example: true })
  visible: boolean;

  @ApiPropertyOptional({ example: '10.5072/IEABC0002' })
  igsn?: string;

  @ApiPropertyOptional({ example: 'Core 1, section 2' })
  name?: string;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'Core Section' })
  object_type?: string | null;

  /** Descendants only: the node's children (left out when it has none within the walk). */
  @ApiPropertyOptional({ type: () => [LineageNode] })
  children?: LineageNode[];
}

export class SampleLineage {
  @ApiProperty({ example: '10.5072/IEABC0001' })
  igsn: string;

  @ApiProperty({ example: 'Core 1' })
  name: string;

  @ApiProperty({ nullable: true, type: String, example: 'Core' })
  object_type: string | null;

  @ApiProperty({ enum: LINEAGE_DIRECTIONS })
  direction: LineageDirection;

  @ApiProperty({ example: LINEAGE_DEFAULT_DEPTH })
  depth: number;

  /** True when the walk stopped at `depth` or at 10,000 nodes with more samples beyond. */
  @ApiProperty({ example: false })
  truncated: boolean;

  /** Parent first, then its parent, …; absent when direction is `descendants`. */
  @ApiPropertyOptional({ type: [LineageNode] })
  ancestors?: LineageNode[];

  /** The sample's children, each with its own children; absent when direction is `ancestors`. */
  @ApiPropertyOptional({ type: [LineageNode] })
  descendants?: LineageNode[];
}

export class SampleLineageResponse {
  data: SampleLineage;
}
