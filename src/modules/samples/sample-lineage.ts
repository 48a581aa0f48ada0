import { EntityManager } from 'typeorm';
import { SampleWriteRepository } from './sample-write.repository';

/** How many ancestors a sample may have: deeper chains (or a cycle stored before this rule) are refused. */
export const MAX_ANCESTORS = 1000;

/**
 * Why a parent is refused to a caller who may see it but not edit it (JSON, batch row, legacy XML):
 * a child appears on its parent's landing page and DataCite record, so only the parent's editors
 * may hang samples under it.
 */
export const PARENT_NEEDS_EDIT = (parent: string): string =>
  `you may not name ${parent}: naming a parent needs edit permission on it`;

/** A proposed parent link: the child by IGSN, the parent by id, and the parent as the write named it. */
export interface ParentLink {
  childIgsn: string;
  parentId: number;
  parentShown: string;
}

/**
 * The one rule for parents of existing samples (PATCH, legacy XML update, batch re-upload): a link
 * must not make a sample its own ancestor, through any number of stored samples. Takes the
 * parent-links lock (held until the transaction ends), then checks the links as if they were all
 * stored; returns the message for each child whose link is refused.
 */
export async function refusedParentLinks(
  sampleWrites: SampleWriteRepository,
  manager: EntityManager,
  links: ParentLink[],
): Promise<Map<string, string>> {
  if (!links.length) return new Map();
  await sampleWrites.lockParentLinks(manager);
  const problems = await sampleWrites.parentLinkProblems(manager, links, MAX_ANCESTORS);
  const refused = new Map<string, string>();
  for (const link of links) {
    const problem = problems.get(link.childIgsn);
    if (problem === 'cycle') {
      refused.set(link.childIgsn, `${link.parentShown} descends from this sample: the link would make a cycle`);
    } else if (problem === 'too-deep') {
      refused.set(link.childIgsn, `${link.parentShown} has more than ${MAX_ANCESTORS} ancestors`);
    }
  }
  return refused;
}
