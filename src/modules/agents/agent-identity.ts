import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { LabelledRowRepository } from '../vocabularies/common/labelled-row.repository';
import { AgentIdentifier } from './agent-identifier';
import type { AgentRepository } from './agent.repository';

/** Runs `work` in the caller's transaction, or in a new one when the caller has none. */
export function inTransaction<T>(
  manager: EntityManager | undefined,
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  if (manager?.queryRunner?.isTransactionActive) return work(manager);
  return (manager ?? dataSource.manager).transaction(work);
}

/** What `resolveAgent` needs to find or make one person or organisation. */
export interface AgentToResolve {
  identifier: AgentIdentifier;
  /** The identifier sent (trimmed), or null. */
  value: string | null;
  /** The name sent (trimmed), or null. */
  label: string | null;
  /** The API path of the label, for errors. */
  labelField: string;
  /** Why an unknown identifier without a label cannot make a record. */
  labelMissing: string;
  /** Inserts the record under the identifier; its id. */
  insertIdentified: (label: string) => Promise<number>;
  /** The columns of a record made from the name alone (create-or-match). */
  namedValues: Record<string, unknown>;
}

/**
 * The identity rule for individuals and institutions: an identifier decides (the record with it,
 * or a new one — under a lock, so two writers cannot both make one); without one, the name matches
 * only when exactly one record has it (409 when several do), and none makes a new one. `created`
 * says whether the record was made just now (nothing to compare it with).
 */
export async function resolveAgent(
  rows: AgentRepository<{ id: number }>,
  labelled: LabelledRowRepository,
  manager: EntityManager,
  agent: AgentToResolve,
): Promise<{ id: number; created: boolean }> {
  const { identifier, value, label, labelField } = agent;
  if (value) {
    await rows.lockIdentifier(manager, value);
    const [existing] = await rows.idsByIdentifier(manager, value);
    if (existing !== undefined) return { id: existing, created: false };
    if (!label) throw ApiError.invalidField(labelField, agent.labelMissing);
    return { id: await agent.insertIdentified(label), created: true };
  }
  const named = label as string;
  const ids = await rows.idsByLabel(manager, named);
  if (ids.length > 1) throw ambiguousName(labelField, identifier.table, named, ids, identifier.field);
  if (ids.length === 1) return { id: ids[0], created: false };
  const match = await labelled.createOrMatch(
    { table: identifier.table, label: named, uniqueBy: 'match_key', values: agent.namedValues },
    manager,
  );
  return { id: match.id, created: match.created };
}

/** 409: a name alone names several records. */
export function ambiguousName(field: string, noun: string, label: string, ids: number[], identifierField: string) {
  return ApiError.conflict(
    `${ids.length} ${noun}s are named "${label}" (ids ${ids.join(', ')}): a name alone does not say which. ` +
      `Send ${identifierField} to name one, or refer to an existing collector by id.`,
    { [field]: [`matches ${ids.length} ${noun}s (ids ${ids.join(', ')}); send ${identifierField}`] },
  );
}

/** 409: an explicit create or an edit would give a second record an identifier another already has. */
export function identifierTaken(field: string, noun: string, value: string, id: number) {
  return ApiError.conflict(`${capitalised(noun)} ${id} already has ${field} ${value}.`, {
    [field]: [`already the ${field} of ${noun} ${id}`],
  });
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
