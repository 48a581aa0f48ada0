import { EntityManager } from 'typeorm';
import { IgsnService } from '../samples';
import { SampleAccessPolicy, SampleCaller } from '../samples';
import { PARENT_NEEDS_EDIT, ParentLink, refusedParentLinks } from '../samples';
import { SampleWriteRepository } from '../samples';

interface PendingLink {
  rowNumber: number;
  /** The Parent IGSN cell as written. */
  parent: string;
  /** The row's own IGSN once known (a minted one only after its chunk is inserted). */
  child: () => string | null | undefined;
}

/**
 * The Parent IGSN cells of one batch. A parent may be a row of the same file, above or below —
 * named by the IGSN in its IGSN column or by the one it is minted — so parents are linked only
 * once every row is inserted, in the batch's transaction, with the rules of POST /api/samples/
 * (visible to the uploader, editable by them, not the sample itself) plus no cycles, within the file or through
 * stored samples.
 */
export class BatchParentLinks {
  private readonly pending: PendingLink[] = [];

  constructor(
    private readonly igsnService: IgsnService,
    private readonly sampleWriteRepository: SampleWriteRepository,
    private readonly policy: SampleAccessPolicy,
  ) {}

  /** Takes the parent out of a validated row (so the row is prepared without it) and remembers it. */
  defer(rowNumber: number, dto: { parent_sample?: string | null }, child: PendingLink['child']): void {
    const parent = dto.parent_sample;
    // Cleared, not deleted: a DTO has every field as its own property (undefined when absent), and a
    // delete would turn it into a slow dictionary-mode object for the rest of the row's preparation.
    dto.parent_sample = undefined;
    if (parent) this.pending.push({ rowNumber, parent, child });
  }

  /**
   * Resolves every remembered parent, adding a row's error to `errorsByRow`; returns the links to
   * write. While other rows have errors some samples were never inserted, so a parent not found
   * then is not reported (it may be one of them).
   */
  async resolve(
    manager: EntityManager,
    caller: SampleCaller,
    now: Date,
    errorsByRow: Map<number, string>,
  ): Promise<{ childIgsn: string; parentId: number }[]> {
    const complete = errorsByRow.size === 0;
    const suffixes = this.pending.map((link) => this.igsnService.parse(link.parent));
    const found = await this.sampleWriteRepository.findByIgsns(manager, [
      ...new Set(suffixes.filter((s): s is string => !!s)),
    ]);
    const byIgsn = new Map(found.map((sample) => [sample.igsn, sample]));
    const parentOf = new Map<string, string>();
    this.pending.forEach((link, index) => {
      const child = link.child();
      if (child && suffixes[index]) parentOf.set(child, suffixes[index]);
    });
    const links: (ParentLink & { rowNumber: number })[] = [];
    this.pending.forEach((link, index) => {
      const fail = (message: string) => {
        if (!errorsByRow.has(link.rowNumber)) errorsByRow.set(link.rowNumber, `parent_sample: ${message}`);
      };
      const suffix = suffixes[index];
      const stored = suffix ? byIgsn.get(suffix) : undefined;
      // A sample the uploader may not see is answered exactly as one that does not exist.
      const parent = stored && this.policy.canView(stored, caller, now) ? stored : undefined;
      const child = link.child();
      if (!parent) {
        if (complete || !suffix) fail(`no sample with IGSN ${link.parent} is visible to you`);
      } else if (child && parent.igsn === child) {
        fail('cannot be the sample itself');
      } else if (!this.policy.canEdit(parent, caller)) {
        fail(PARENT_NEEDS_EDIT(link.parent));
      } else if (child && this.leadsBackTo(child, parent.igsn, parentOf)) {
        fail(`${link.parent} is a descendant of this sample in the same file (a cycle)`);
      } else if (child) {
        links.push({
          childIgsn: child,
          parentId: Number(parent.id),
          parentShown: link.parent,
          rowNumber: link.rowNumber,
        });
      }
    });
    if (!errorsByRow.size) {
      // Through stored samples too: a re-uploaded row may hang its sample under one of its descendants.
      const refused = await refusedParentLinks(this.sampleWriteRepository, manager, links);
      for (const link of links) {
        const message = refused.get(link.childIgsn);
        if (message) errorsByRow.set(link.rowNumber, `parent_sample: ${message}`);
      }
    }
    return links.map(({ childIgsn, parentId }) => ({ childIgsn, parentId }));
  }

  /** Whether following the file's parent links up from `start` reaches `target`. */
  private leadsBackTo(target: string, start: string, parentOf: Map<string, string>): boolean {
    let current: string | undefined = start;
    for (let steps = 0; current !== undefined && steps <= parentOf.size; steps++) {
      if (current === target) return true;
      current = parentOf.get(current);
    }
    return false;
  }
}
