import { ApiError } from '../../core/http/api-error';

/** The columns a search may be ordered by; each has an index that pairs it with the id (or is unique). */
export type SampleOrderColumn = 'igsn' | 'name' | 'created_at' | 'updated_at' | 'id';

export interface SampleOrder {
  column: SampleOrderColumn;
  descending: boolean;
}

/** Newest first: the order of every search that names none. */
export const DEFAULT_SAMPLE_ORDER: SampleOrder = { column: 'created_at', descending: true };

/** `ordering` values (SESAR2's names and ours), each also with a leading `-` for descending. */
export const SAMPLE_ORDERINGS: Readonly<Record<string, SampleOrderColumn>> = {
  igsn: 'igsn',
  name: 'name',
  registration_date: 'created_at',
  created_at: 'created_at',
  last_update_date: 'updated_at',
  updated_at: 'updated_at',
  id: 'id',
};

/** The `ordering` values as OpenAPI lists them. */
export const SAMPLE_ORDERING_VALUES = Object.keys(SAMPLE_ORDERINGS).flatMap((name) => [name, `-${name}`]);

/** `ordering=-igsn` → igsn descending; absent or blank → newest first; anything else → 400. */
export function parseSampleOrdering(value: string | undefined): SampleOrder {
  const given = value?.trim();
  if (!given) return DEFAULT_SAMPLE_ORDER;
  const descending = given.startsWith('-');
  const name = descending ? given.slice(1) : given;
  // hasOwn: `constructor` and the like are no orderings.
  if (!Object.hasOwn(SAMPLE_ORDERINGS, name)) {
    throw ApiError.invalidField('ordering', `must be one of ${SAMPLE_ORDERING_VALUES.join(', ')}`);
  }
  return { column: SAMPLE_ORDERINGS[name], descending };
}

/**
 * The ORDER BY list of an order on `alias` (`''` for bare column names): the column, then the id
 * in the same direction so pages never overlap or skip (IGSNs are unique and need no tie-breaker).
 */
export function orderBySql(order: SampleOrder, alias: string): string {
  const prefix = alias ? `${alias}.` : '';
  const direction = order.descending ? 'DESC' : 'ASC';
  const first = `${prefix}${order.column} ${direction}`;
  return order.column === 'igsn' || order.column === 'id' ? first : `${first}, ${prefix}id ${direction}`;
}
