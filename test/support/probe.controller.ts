import { Body, Controller, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Public } from '../../src/core/auth/public.decorator';

class ProbeIndividual {
  @IsString()
  @MaxLength(5)
  label: string;
}

class ProbeCollector {
  @ValidateNested()
  @Type(() => ProbeIndividual)
  individual: ProbeIndividual;
}

class ProbeBody {
  @IsNumber()
  @Min(-90)
  @Max(90)
  latitude: number;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ProbeCollector)
  collectors?: ProbeCollector[];
}

/** Test-only routes that exercise the HTTP plumbing (validation, errors); not part of the app. */
@Public()
@Controller('test-probe')
export class ProbeController {
  @Post('echo')
  echo(@Body() body: ProbeBody): { data: ProbeBody } {
    return { data: body };
  }

  @Post('explode')
  explode(): never {
    throw new Error('secret internal detail');
  }
}
