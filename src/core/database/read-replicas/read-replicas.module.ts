import { Global, Module } from '@nestjs/common';
import { CallerPositions } from './caller-positions';
import { ReadRouting } from './read-routing.service';
import { Standbys } from './standbys';

/** Reads on streaming standbys (DATABASE_READ_URLS): the standbys, their checks, the routing. */
@Global()
@Module({
  providers: [Standbys, CallerPositions, ReadRouting],
  exports: [Standbys, ReadRouting],
})
export class ReadReplicasModule {}
