import { Injectable } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { SampleDto } from '../samples/dto/sample.dto';
import { IgsnService } from '../samples/igsn.service';
import { SampleAccessPolicy } from '../samples/sample-access.policy';
import { SampleMapper, accessFacts } from '../samples/sample.mapper';
import { SampleRepository } from '../samples/sample.repository';
import { LandingPageLink } from './landing-page.renderer';

export type LandingPageSample =
  { kind: 'public'; sample: SampleDto; children: LandingPageLink[] } | { kind: 'deactivated' } | { kind: 'not-found' };

/** What a landing page shows: only samples the access policy calls public, as anyone sees them. */
@Injectable()
export class LandingPagesService {
  constructor(
    private readonly samples: SampleRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsn: IgsnService,
    private readonly clock: Clock,
  ) {}

  async find(igsn: string): Promise<LandingPageSample> {
    const suffix = this.igsn.parse(igsn);
    const row = suffix ? await this.samples.byIgsn(suffix) : undefined;
    if (!row) return { kind: 'not-found' };
    if (row.is_deactivated) return { kind: 'deactivated' };
    const now = this.clock.now();
    if (!SampleAccessPolicy.isPublic(accessFacts(row), now)) return { kind: 'not-found' };
    const children = await this.samples.childrenOf([row.id], this.policy.publicCondition('s', now, 0));
    return {
      kind: 'public',
      sample: this.mapper.toDto(row, false),
      children: children.map((child) => ({ igsn: this.igsn.toDoi(child.igsn), name: child.name })),
    };
  }
}
