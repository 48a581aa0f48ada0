import { EntityManager } from 'typeorm';
import { ApiError } from '../../../core/http/api-error';

/**
 * The 409 of a PATCH that would give a row the label (trimmed, case-insensitive) another row of
 * its table has. A concurrent rename to the same label trips the table's unique index instead.
 */
export async function refuseTakenLabel(
  manager: EntityManager,
  spec: { table: 'archive' | 'platform' | 'launch_platform'; noun: string; label: string; id: number },
): Promise<void> {
  const [other] = await manager.query<{ id: number }[]>(
    `SELECT id FROM ${spec.table} WHERE lower(btrim(label)) = lower(btrim($1)) AND id <> $2`,
    [spec.label, spec.id],
  );
  if (!other) return;
  const article = /^[aeiou]/i.test(spec.noun) ? 'an' : 'a';
  throw ApiError.conflict(
    `${article === 'an' ? 'An' : 'A'} ${spec.noun} labelled "${spec.label}" already exists (id ${other.id}).`,
    { label: [`${article} ${spec.noun} with this label already exists`] },
  );
}
