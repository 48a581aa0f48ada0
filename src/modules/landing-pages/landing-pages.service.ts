import { Injectable } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { SampleDto } from '../samples/dto/sample.dto';
import { IgsnService } from '../samples/igsn.service';
import { SampleAccessPolicy } from '../samples/sample-access.policy';
import { SamplePublicationRepository } from '../samples/sample-publication.repository';
import { SampleReader, accessFacts } from '../samples/sample.reader';
import { LandingPageLink } from './landing-page.renderer';

export type LandingPageSample =
  { kind: 'public'; sample: SampleDto; children: LandingPageLink[] } | { kind: 'deactivated' } | { kind: 'not-found' };

/** What a landing page shows: only samples the access policy calls public, as anyone sees them. */
@Injectable()
export class LandingPagesService {
  constructor(
    private readonly reader: SampleReader,
    private readonly publication: SamplePublicationRepository,
    private readonly igsn: IgsnService,
    private readonly clock: Clock,
  ) {}

  async find(igsn: string): Promise<LandingPageSample> {
    const suffix = this.igsn.parse(igsn);
    const row = suffix ? await this.reader.byIgsn(suffix) : undefined;
    if (!row) return { kind: 'not-found' };
    if (row.is_deactivated) return { kind: 'deactivated' };
    const now = this.clock.now();
    if (!SampleAccessPolicy.isPublic(accessFacts(row), now)) return { kind: 'not-found' };
    const children = await this.publication.publicChildren([row.id], now);
    return {
      kind: 'public',
      sample: this.reader.toDto(row, false),
      children: children.map((child) => ({ igsn: this.igsn.toDoi(child.igsn), name: child.name })),
    };
  }
}
