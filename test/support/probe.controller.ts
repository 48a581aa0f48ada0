import { Body, Controller, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsNumber, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Public } from '../../src/core/auth/public.decorator';
import { MaxLength } from '../../src/core/http/text-length';

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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Post('echo')
  echo(@Body() body: ProbeBody): { data: ProbeBody } {
    return { data: body };
  }

  @Post('explode')
  explode(): never {
    throw new Error('secret internal detail');
  }

  /** A failing SQL statement, as a bug would issue: TypeORM reports it, the caller gets a 500. */
  @Post('bad-query')
  async badQuery(): Promise<never> {
    await this.dataSource.query('SELECT * FROM table_that_does_not_exist');
    throw new Error('unreachable: the query above fails');
  }
}
