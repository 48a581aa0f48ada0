import { Injectable } from '@nestjs/common';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Clock } from '../../../core/clock';
import { IgsnService } from '../igsn.service';
import { SampleAccessPolicy, SampleCaller } from '../sample-access.policy';
import { SampleReader } from '../sample-reader';
import {
  LINEAGE_DEFAULT_DEPTH,
  LINEAGE_MAX_NODES,
  LineageDirection,
  LineageNode,
  SampleLineage,
} from './sample-lineage.dto';
import { LineageRow, SampleLineageRepository } from './sample-lineage.repository';

/**
 * GET /api/samples/{igsn}/lineage/: the sample's parents and children as far as asked. The sample
 * itself follows fetch's rules (401/404/410 as GET /api/samples/{igsn}/); every other node is shown
 * by the access policy's verdict for the caller: fields when visible, `{visible: false}` otherwise,
 * so the shape of a tree never tells what a hidden sample is.
 */
@Injectable()
export class SampleLineageService {
  constructor(
    private readonly sampleLineageRepository: SampleLineageRepository,
    private readonly reader: SampleReader,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly clock: Clock,
  ) {}

  async lineageOf(
    igsnValue: string,
    options: { direction?: LineageDirection; depth?: number },
    user: AuthenticatedUser | undefined,
  ): Promise<SampleLineage> {
    const root = await this.reader.findVisibleRow(igsnValue, user);
    const caller = await this.policy.caller(user);
    const direction = options.direction ?? 'both';
    const depth = options.depth ?? LINEAGE_DEFAULT_DEPTH;
    const result: SampleLineage = {
      igsn: this.igsnService.toDoi(root.igsn),
      name: root.name,
      object_type: root.object_type,
      direction,
      depth,
      truncated: false,
    };
    let budget = LINEAGE_MAX_NODES;
    if (direction !== 'descendants') {
      // One level more than asked: whether the chain goes on says whether it was cut.
      const rows = await this.sampleLineageRepository.ancestors(root.id, depth + 1);
      const kept = rows.filter((row) => row.depth <= depth);
      result.truncated ||= kept.length < rows.length;
      result.ancestors = kept.map((row) => this.node(row, caller));
      budget -= kept.length;
    }
    if (direction !== 'ancestors') {
      const rows = await this.sampleLineageRepository.descendants(root.id, depth + 1, budget + 1);
      const kept = rows.filter((row) => row.depth <= depth).slice(0, budget);
      result.truncated ||= kept.length < rows.length;
      result.descendants = this.tree(root.id, kept, caller);
    }
    return result;
  }

  /** Nodes by their parent, breadth first (rows come level by level, so a parent precedes its children). */
  private tree(rootId: string, rows: LineageRow[], caller: SampleCaller | undefined): LineageNode[] {
    const roots: LineageNode[] = [];
    const byId = new Map<string, LineageNode>();
    for (const row of rows) {
      const node = this.node(row, caller);
      byId.set(row.id, node);
      const parent = row.viaId === rootId ? undefined : byId.get(row.viaId);
      if (parent) (parent.children ??= []).push(node);
      else roots.push(node);
    }
    return roots;
  }

  private node(row: LineageRow, caller: SampleCaller | undefined): LineageNode {
    if (!this.policy.canView(row.facts, caller, this.clock.now())) return { visible: false };
    return { visible: true, igsn: this.igsnService.toDoi(row.igsn), name: row.name, object_type: row.objectType };
  }
}
