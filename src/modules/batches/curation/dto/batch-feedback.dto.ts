import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsOptional, IsString, ValidateNested } from 'class-validator';
import { MaxLength } from '../../../../core/http/text-length';
import { Trim } from '../../../../core/http/trim';

/** A comment on one sample of the batch. */
@ApiSchema({ name: 'SampleFeedbackInput' })
export class SampleFeedbackInputDto {
  /** A sample of this batch: DOI form, bare suffix, any letter case. */
  @ApiProperty({ example: '10.5072/IEABC0001', maxLength: 60 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(60)
  igsn: string;

  /** Filled in with the sample's name when left empty. */
  @ApiPropertyOptional({ example: 'AT42-01', default: '', maxLength: 255 })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(255)
  name?: string;

  @ApiProperty({ example: 'Latitude and longitude look swapped.', maxLength: 5000 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(5000)
  comment: string;
}

/** POST /api/batches/{id}/feedback/: a general note, comments on samples, or both. */
@ApiSchema({ name: 'BatchFeedbackInput' })
export class BatchFeedbackInputDto {
  @ApiPropertyOptional({ example: 'Please add the core diameter to every sample.', default: '', maxLength: 10000 })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(10000)
  general_feedback?: string;

  @ApiPropertyOptional({ type: [SampleFeedbackInputDto], default: [] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => SampleFeedbackInputDto)
  sample_feedback?: SampleFeedbackInputDto[];
}
