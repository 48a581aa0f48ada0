import { EntityManager } from 'typeorm';
import { ApiError } from '../../../core/http/api-error';
import { LabelledRowRepository } from './labelled-row.repository';

/**
 * The 409 of a PATCH that would give a row the label (trimmed, case-insensitive) another row of
 * its table has. A concurrent rename to the same label trips the table's unique index instead.
 */
export async function refuseTakenLabel(
  rows: LabelledRowRepository,
  manager: EntityManager | undefined,
  spec: { table: 'archive' | 'platform' | 'launch_platform'; noun: string; label: string; id: number },
): Promise<void> {
  const other = await rows.otherWithLabel(spec.table, spec.label, spec.id, manager);
  if (other === undefined) return;
  const article = /^[aeiou]/i.test(spec.noun) ? 'an' : 'a';
  throw ApiError.conflict(
    `${article === 'an' ? 'An' : 'A'} ${spec.noun} labelled "${spec.label}" already exists (id ${other}).`,
    { label: [`${article} ${spec.noun} with this label already exists`] },
  );
}
