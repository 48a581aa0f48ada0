import { Injectable } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { SampleDto } from '../samples';
import { IgsnService } from '../samples';
import { SampleAccessPolicy } from '../samples';
import { SampleMapper, accessFacts } from '../samples';
import { SampleRepository } from '../samples';
import { SamplePublicRepository } from '../samples';
import { SampleLineageService } from '../samples';
import { LineageNode } from '../samples';
import { LandingPageLink } from './landing-page.renderer';

export type LandingPageSample =
  | {
      kind: 'public';
      sample: SampleDto;
      children: LandingPageLink[];
      ancestors: LandingPageLink[];
      childCount: number;
    }
  | { kind: 'deactivated' }
  | { kind: 'not-found' };

/** What a landing page shows: only samples the access policy calls public, as anyone sees them. */
@Injectable()
export class LandingPagesService {
  constructor(
    private readonly sampleRepository: SampleRepository,
    private readonly samplePublicRepository: SamplePublicRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
    private readonly sampleLineageService: SampleLineageService,
  ) {}

  async find(igsn: string): Promise<LandingPageSample> {
    const suffix = this.igsnService.parse(igsn);
    const row = suffix ? await this.sampleRepository.byIgsn(suffix) : undefined;
    if (!row) return { kind: 'not-found' };
    const now = this.clock.now();
    if (row.is_deactivated) {
      // Withdrawn (410) only when it was ever public; a draft deactivated before that never existed
      // for the public, so it answers exactly like an unknown IGSN (OAI-PMH draws the same line).
      const wasPublic = await this.samplePublicRepository.meets(row.id, this.policy.harvestableCondition('s', now));
      return { kind: wasPublic ? 'deactivated' : 'not-found' };
    }
    if (!SampleAccessPolicy.isPublic(accessFacts(row), now)) return { kind: 'not-found' };
    const children = await this.samplePublicRepository.childrenOf([row.id], this.policy.publicCondition('s', now));
    // As anyone sees it: the chain of public parents up to the first hidden one, and the public children.
    const { ancestors } = await this.sampleLineageService.lineageOf(
      row.igsn,
      { direction: 'ancestors', depth: 20 },
      undefined,
    );
    const { descendants } = await this.sampleLineageService.lineageOf(
      row.igsn,
      { direction: 'descendants', depth: 1 },
      undefined,
    );
    const shown = (nodes: LineageNode[] = []) =>
      nodes.flatMap((node) => (node.visible ? [{ igsn: node.igsn as string, name: node.name as string }] : []));
    const hiddenAt = (ancestors ?? []).findIndex((node) => !node.visible);
    return {
      kind: 'public',
      sample: this.mapper.toDto(row, false),
      children: children.map((child) => ({ igsn: this.igsnService.toDoi(child.igsn), name: child.name })),
      ancestors: shown(hiddenAt < 0 ? ancestors : ancestors?.slice(0, hiddenAt)),
      childCount: shown(descendants).length,
    };
  }
}
