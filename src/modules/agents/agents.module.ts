import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Individual } from './individual.entity';
import { Institution } from './institution.entity';

/** People and organisations (individuals, institutions, archives) and their create-or-match services. */
@Module({
  imports: [TypeOrmModule.forFeature([Individual, Institution])],
  exports: [TypeOrmModule],
})
export class AgentsModule {}
