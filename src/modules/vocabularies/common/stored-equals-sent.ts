import { EntityManager } from 'typeorm';
import { ApiError } from '../../../core/http/api-error';
import { LabelledRowRepository } from './labelled-row.repository';

/** One attribute a write sent alongside a record it matched (by label or identifier). */
export interface SentAttribute<Row> {
  /** Error path, e.g. `platform.platform_type`. */
  field: string;
  /** The column that stores it (a trusted constant). */
  column: string;
  /** What was sent, normalised as it would be stored; null or undefined when nothing was sent. */
  sent: string | number | null | undefined;
  /** What `row` stores in `column`. */
  stored: (row: Row) => string | number | null;
  /** How the stored value reads in a message (e.g. the label behind a vocabulary id); default the value. */
  shown?: (row: Row) => string | null;
  /** What the caller sent, as a message shows it; default `sent`. */
  sentShown?: string;
  /** Text compared without regard to case and surrounding spaces (labels); otherwise exactly. */
  caseInsensitive?: boolean;
}

export interface StoredEqualsSentSpec<Row> {
  /** The table of the matched row (a trusted constant). */
  table: string;
  id: number;
  /** How a message names the record, e.g. `platform 12 "R/V Atlantis"`. */
  describe: (row: Row) => string;
  /** Reads the row (with what `stored` and `shown` need). */
  load: () => Promise<Row>;
  attributes: SentAttribute<Row>[];
  /** Where a caller who may edit the record corrects it, e.g. `/api/platforms/12/`; none: a curator does. */
  editPath?: string;
}

const same = <Row>(attribute: SentAttribute<Row>, row: Row): boolean => {
  const stored = attribute.stored(row);
  const sent = attribute.sent;
  if (attribute.caseInsensitive && typeof stored === 'string' && typeof sent === 'string') {
    return stored.trim().toLowerCase() === sent.trim().toLowerCase();
  }
  return stored === sent;
};

const given = <Row>(attribute: SentAttribute<Row>) => attribute.sent !== null && attribute.sent !== undefined;

/**
 * The rule for records that writes name inline (platforms, archives, institutions, individuals):
 * what was sent is never silently dropped. Each sent attribute must equal what the matched record
 * stores; a blank the record has is filled in with what was sent (so the record then equals it);
 * any other difference is a 409 naming the field and the stored value. The fill-in is one UPDATE
 * that only writes NULL columns, so two writers racing to fill one blank differently end with one
 * value stored and a 409 for the other. Runs inside the caller's transaction (`manager`).
 */
export async function storedEqualsSent<Row>(
  rows: LabelledRowRepository,
  manager: EntityManager | undefined,
  spec: StoredEqualsSentSpec<Row>,
): Promise<Row> {
  let row = await spec.load();
  const blanks = spec.attributes.filter((attribute) => given(attribute) && attribute.stored(row) === null);
  throwOnDifferences(row, spec);
  if (blanks.length) {
    await rows.fillBlanks(
      spec.table,
      spec.id,
      blanks.map((attribute) => ({ column: attribute.column, value: attribute.sent })),
      manager,
    );
    row = await spec.load();
    throwOnDifferences(row, spec);
  }
  return row;
}

/**
 * Whether `row` already stores every attribute that was sent, as sent: then storedEqualsSent would
 * neither fill in a blank nor refuse, and a write may take the row as it is without running it.
 */
export function storesAllSent<Row>(row: Row, attributes: SentAttribute<Row>[]): boolean {
  return attributes.every((attribute) => !given(attribute) || (attribute.stored(row) !== null && same(attribute, row)));
}

function throwOnDifferences<Row>(row: Row, spec: StoredEqualsSentSpec<Row>): void {
  const differing = spec.attributes.filter(
    (attribute) => given(attribute) && attribute.stored(row) !== null && !same(attribute, row),
  );
  if (!differing.length) return;
  const shown = (attribute: SentAttribute<Row>) =>
    JSON.stringify((attribute.shown ?? attribute.stored)(row) ?? attribute.stored(row));
  const sentShown = (attribute: SentAttribute<Row>) => JSON.stringify(attribute.sentShown ?? attribute.sent);
  const parts = differing.map(
    (attribute) => `${attribute.field} ${sentShown(attribute)} differs from the stored ${shown(attribute)}`,
  );
  const correction = spec.editPath
    ? `have someone who may edit the record correct it with PATCH ${spec.editPath}`
    : 'ask a curator to correct the record';
  throw ApiError.conflict(
    `${capitalise(spec.describe(row))} is stored with other values: ${parts.join('; ')}. Send the stored ` +
      `values (or leave them out), or ${correction}.`,
    Object.fromEntries(differing.map((attribute) => [attribute.field, [`the stored value is ${shown(attribute)}`]])),
  );
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
