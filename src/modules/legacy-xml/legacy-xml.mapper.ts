import { TEXT_APPEND_SEPARATOR } from '../samples';
import { objectTypeForLegacy, objectTypeForLegacyPair } from './legacy-sample-types';
import { LEGACY_XML_MAPPING, LegacyXmlMappingRow } from './legacy-xml.mapping-table';
import { LegacyXmlElement } from './legacy-xml.parser';

export { LEGACY_XML_MAPPING } from './legacy-xml.mapping-table';
export type { LegacyXmlMappingRow, LegacyXmlRule } from './legacy-xml.mapping-table';

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * The JSON body of `POST /api/samples/` (or `PATCH /api/samples/{igsn}/`) built from one `<sample>`.
 * It is as untrusted as a JSON request and goes through the same validation: that is where unknown
 * fields, repeated single-valued elements (arrays here) and non-numeric numbers are rejected.
 */
export type LegacySampleBody = JsonObject;

export type LegacyXmlOperation = 'register' | 'update';

/** The free-text fields several elements are joined into. */
export type JoinedTextField = 'sample_description' | 'location_description';

/** What one `<sample>` asks the samples service to write. */
export interface LegacySampleWrite {
  /** The JSON body of the register (or the PATCH body of the update). */
  readonly body: LegacySampleBody;
  /**
   * `sample_type` and `sample_subtype` as sent (`Individual Sample > Thin Section`, or the one that
   * is present), kept on the sample as its legacy sample type; undefined when the sample has neither.
   */
  readonly legacySampleType?: string;
  /**
   * Update only: the comments to append to the stored text of a field whose own element the
   * document does not carry (`<sample_comment>` without `<description>`).
   */
  readonly append: Partial<Record<JoinedTextField, string>>;
}

/** Between the parts joined into one text field: a blank line, as between paragraphs. */
export const SAMPLE_DESCRIPTION_SEPARATOR = TEXT_APPEND_SEPARATOR;

/**
 * The elements joined into each free-text field, in the order they are joined whatever their order
 * in the document. The first is the field's own element: on an update without it, the others are
 * appended to the stored text instead of replacing it.
 */
const JOINED_PARTS: Readonly<Record<JoinedTextField, readonly string[]>> = {
  sample_description: ['description', 'sample_comment', 'classification_comment'],
  location_description: ['location_description', 'locality_description'],
};

/** JSON fields that are lists even with one entry. */
const LIST_FIELDS: ReadonlySet<string> = new Set(['other_names', 'material_types', 'collectors', 'related_resources']);

/** xs:decimal, plus an exponent; "0x10", "1,5", "" and "Infinity" stay text. */
const DECIMAL_PATTERN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The rows the mapper dispatches on: those naming an element directly under `<sample>`. */
const ROWS_BY_ELEMENT: ReadonlyMap<string, LegacyXmlMappingRow> = new Map(
  LEGACY_XML_MAPPING.filter((row) => !row.xml.includes('/')).map((row) => [row.xml, row]),
);

/** Maps one parsed `<sample>` element to the JSON sample body, applying every rule of the mapping table. */
export function mapLegacySample(sample: LegacyXmlElement): LegacySampleBody {
  return mapLegacySampleWrite(sample, 'register').body;
}

/** Maps one `<sample>` to what a register or an update writes: the body, the legacy sample type, the appends. */
export function mapLegacySampleWrite(sample: LegacyXmlElement, operation: LegacyXmlOperation): LegacySampleWrite {
  const collected = new CollectedSample();
  for (const element of sample.children) collectElement(collected, element);
  const append = operation === 'update' ? collected.takeAppends() : {};
  return { body: collected.toBody(), legacySampleType: collected.legacySampleType(), append };
}

/** Names of the elements under `<sample>` that the table does not know; they pass through unchanged. */
export function unmappedElementNames(sample: LegacyXmlElement): string[] {
  const names = sample.children.map((element) => element.name).filter((name) => !ROWS_BY_ELEMENT.has(name));
  return [...new Set(names)];
}

/**
 * Elements under `<sample>` that would carry data the JSON sample record cannot hold: non-empty
 * elements whose row is `refused`, and non-empty elements outside the table whose name is not one of
 * `jsonFields` (the fields the JSON write accepts). A sample with any of them is refused, naming
 * them, instead of being stored without them. Empty elements are dropped anyway, so they do not count.
 */
export function elementsWithoutField(sample: LegacyXmlElement, jsonFields: ReadonlySet<string>): string[] {
  const names = sample.children
    .filter((element) => {
      const row = ROWS_BY_ELEMENT.get(element.name);
      const known = row === undefined ? jsonFields.has(element.name) : row.rule !== 'refused';
      return !known && legacyText(element) !== '';
    })
    .map((element) => element.name);
  return [...new Set(names)];
}

/**
 * Text of an element as the old schema read it (xs:token): runs of XML whitespace collapsed to one
 * space and trimmed. This also repairs documents whose lines were wrapped inside a value.
 */
export function legacyText(element: LegacyXmlElement): string {
  return collapseWhitespace(deepText(element));
}

function collectElement(collected: CollectedSample, element: LegacyXmlElement): void {
  const row = ROWS_BY_ELEMENT.get(element.name);
  if (row === undefined) {
    collected.addValue(element.name, legacyText(element));
    return;
  }
  const text = legacyText(element);
  switch (row.rule) {
    case 'text':
      collected.addValue(row.json, text);
      return;
    case 'number':
      collected.addValue(row.json, numberOrText(text));
      return;
    case 'lowercase':
      collected.addValue(row.json, text.toLowerCase());
      return;
    case 'object-type':
      (element.name === 'sample_subtype' ? collected.subtypes : collected.types).push(text);
      return;
    case 'sample-type-name':
      collected.addValue(row.json, objectTypeForLegacy(text) ?? text);
      return;
    case 'registry-code':
      collected.userCodes.push(text);
      return;
    case 'description':
      collected.textParts.push({ element: element.name, text });
      return;
    case 'classification':
      collected.classifications.push(...classificationLabels(element));
      return;
    case 'collector':
      collected.collectorNames.push(text);
      return;
    case 'collector-detail':
      collected.collectorDetails.push(text);
      return;
    case 'other-name':
      collected.otherNames.push(...otherNames(element));
      return;
    case 'related-resource':
      collected.relatedResources.push(...relatedResources(element));
      return;
    case 'ignored':
    case 'refused': // elementsWithoutField names it; the sample is refused before its body is used
      return;
  }
}

/**
 * Everything read from one `<sample>`. Plain fields are kept as lists of values per JSON path so a
 * repeated element is not silently reduced to one value: it becomes an array that validation refuses.
 */
class CollectedSample {
  private readonly fields = new Map<string, { values: JsonValue[]; members: Map<string, JsonValue[]> }>();
  readonly subtypes: string[] = [];
  readonly types: string[] = [];
  readonly userCodes: string[] = [];
  readonly textParts: { element: string; text: string }[] = [];
  readonly classifications: string[] = [];
  readonly collectorNames: string[] = [];
  readonly collectorDetails: string[] = [];
  readonly otherNames: string[] = [];
  readonly relatedResources: JsonObject[] = [];

  /** Adds a value at `field` or `field.member`; empty text is dropped. */
  addValue(path: string | null, value: JsonValue): void {
    if (path === null || value === '') return;
    const dot = path.indexOf('.');
    const field = this.field(dot === -1 ? path : path.slice(0, dot));
    if (dot === -1) {
      field.values.push(value);
      return;
    }
    const member = path.slice(dot + 1);
    field.members.set(member, [...(field.members.get(member) ?? []), value]);
  }

  toBody(): LegacySampleBody {
    this.resolveObjectType();
    this.resolveRegistryCode();
    for (const field of Object.keys(JOINED_PARTS) as JoinedTextField[]) this.addValue(field, this.joinedText(field));
    this.addList(
      'material_types',
      this.classifications.map((label) => stripMaterialPrefix(label, this.singleText('general_material_type'))),
    );
    this.addList('collectors', this.collectors());
    this.addList('other_names', this.otherNames);
    this.addList('related_resources', this.relatedResources);
    return Object.fromEntries([...this.fields].map(([name, field]) => [name, fieldValue(name, field)]));
  }

  private field(name: string): { values: JsonValue[]; members: Map<string, JsonValue[]> } {
    let field = this.fields.get(name);
    if (field === undefined) {
      field = { values: [], members: new Map() };
      this.fields.set(name, field);
    }
    return field;
  }

  private addList(name: string, entries: readonly JsonValue[]): void {
    for (const entry of entries) this.addValue(name, entry);
  }

  /**
   * Rule: the subtype is the more specific object type, so it wins; the type is used only without
   * one. One type and one subtype go through the sample-type table; repeated ones are passed on as a
   * list for validation to refuse.
   */
  private resolveObjectType(): void {
    const subtypes = this.subtypes.filter(Boolean);
    const types = this.types.filter(Boolean);
    if (subtypes.length > 1 || types.length > 1) {
      this.addList('object_type', subtypes.length > 0 ? subtypes : types);
      return;
    }
    this.addValue('object_type', objectTypeForLegacyPair(types[0], subtypes[0]) ?? '');
  }

  /** `Type > Subtype` as sent, or the one present; undefined without either (or when one is repeated). */
  legacySampleType(): string | undefined {
    const parts = [this.types.filter(Boolean), this.subtypes.filter(Boolean)];
    if (parts.some((values) => values.length > 1)) return undefined;
    const pair = parts.flat().join(' > ');
    return pair === '' ? undefined : pair;
  }

  /**
   * For an update: the parts of each joined field whose own element is absent are removed from the
   * write and returned, to be appended to the stored text rather than replace it.
   */
  takeAppends(): Partial<Record<JoinedTextField, string>> {
    const appends: Partial<Record<JoinedTextField, string>> = {};
    for (const field of Object.keys(JOINED_PARTS) as JoinedTextField[]) {
      const own = JOINED_PARTS[field][0];
      if (this.textParts.some((part) => part.element === own && part.text !== '')) continue;
      const text = this.joinedText(field);
      if (text !== '') appends[field] = text;
      const others = new Set(JOINED_PARTS[field]);
      this.textParts.splice(0, this.textParts.length, ...this.textParts.filter((part) => !others.has(part.element)));
    }
    return appends;
  }

  /** Rule: user_code is the old name of the registry code and only fills it when the document has none. */
  private resolveRegistryCode(): void {
    if (this.fields.has('registry_code') || this.fields.has('sesar_code')) return;
    this.addList('registry_code', this.userCodes);
  }

  private joinedText(field: JoinedTextField): string {
    const order = JOINED_PARTS[field];
    const rank = (element: string) => order.indexOf(element);
    return this.textParts
      .filter((part) => rank(part.element) !== -1)
      .sort((a, b) => rank(a.element) - rank(b.element))
      .map((part) => part.text)
      .filter(Boolean)
      .join(SAMPLE_DESCRIPTION_SEPARATOR);
  }

  /** Pairs the n-th collector with the n-th collector_detail; a detail without a name stays a description. */
  private collectors(): JsonObject[] {
    const names = this.collectorNames.filter(Boolean);
    const details = this.collectorDetails.filter(Boolean);
    const collectors: JsonObject[] = [];
    for (let i = 0; i < Math.max(names.length, details.length); i++) {
      const collector: JsonObject = {};
      if (i < names.length) collector.individual = { label: names[i] };
      if (i < details.length) collector.description = details[i];
      collectors.push(collector);
    }
    return collectors;
  }

  private singleText(name: string): string | undefined {
    const values = this.fields.get(name)?.values ?? [];
    return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
  }
}

function fieldValue(name: string, field: { values: JsonValue[]; members: Map<string, JsonValue[]> }): JsonValue {
  const parts = [...field.values];
  if (field.members.size > 0) {
    parts.push(Object.fromEntries([...field.members].map(([member, values]) => [member, singleOrList(values)])));
  }
  return LIST_FIELDS.has(name) ? parts : singleOrList(parts);
}

/** One value as itself; several (a repeated element) as an array, which validation refuses for a scalar field. */
function singleOrList(values: JsonValue[]): JsonValue {
  return values.length === 1 ? values[0] : values;
}

function numberOrText(text: string): JsonValue {
  if (!DECIMAL_PATTERN.test(text)) return text;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/**
 * Classification labels of one `<classification>`: its text (the older `A>B>C` form), or one label
 * per leaf of the nested element form. A leaf named after its parent plus "Type" (PlutonicType under
 * Plutonic) is how the classification schema holds the value, so its name is not a step of the path.
 */
function classificationLabels(classification: LegacyXmlElement): string[] {
  if (classification.children.length === 0) {
    const label = legacyText(classification);
    return label ? [label] : [];
  }
  return classificationPaths(classification, []).map((steps) => steps.join('>'));
}

function classificationPaths(parent: LegacyXmlElement, prefix: string[]): string[][] {
  const paths: string[][] = [];
  for (const child of parent.children) {
    if (child.children.length > 0) {
      paths.push(...classificationPaths(child, [...prefix, child.name]));
      continue;
    }
    const holdsValueOnly = child.name === `${parent.name}Type`;
    const value = legacyText(child);
    const steps = holdsValueOnly ? prefix : [...prefix, child.name];
    paths.push(value ? [...steps, value] : steps);
  }
  return paths.filter((steps) => steps.length > 0);
}

/** Rule 6: "Rock>Igneous>Plutonic" with material "Rock" is "Igneous>Plutonic"; the rest is kept whole. */
function stripMaterialPrefix(label: string, material: string | undefined): string {
  if (!material) return label;
  const prefix = new RegExp(`^${escapeRegExp(material)}\\s*>\\s*`, 'i');
  const stripped = label.replace(prefix, '');
  return stripped || label;
}

function otherNames(element: LegacyXmlElement): string[] {
  const names = element.name === 'sample_other_names' ? childrenNamed(element, 'sample_other_name') : [element];
  return names.map(legacyText).filter(Boolean);
}

/** Rule 8: url and description are kept; url_type, old_url and file attachments are not. */
function relatedResources(element: LegacyXmlElement): JsonObject[] {
  const links = element.name === 'external_urls' ? childrenNamed(element, 'external_url') : [element];
  const resources: JsonObject[] = [];
  for (const link of links) {
    const uri = childTexts(link, ['url']);
    const description = childTexts(link, ['description', 'url_description']);
    if (uri.length === 0 && description.length === 0) continue;
    resources.push({
      uri: uri.length === 0 ? null : singleOrList(uri),
      description: description.length === 0 ? null : singleOrList(description),
      relation_type: null,
    });
  }
  return resources;
}

function childrenNamed(element: LegacyXmlElement, name: string): LegacyXmlElement[] {
  return element.children.filter((child) => child.name === name);
}

function childTexts(element: LegacyXmlElement, names: readonly string[]): string[] {
  return element.children
    .filter((child) => names.includes(child.name))
    .map(legacyText)
    .filter(Boolean);
}

/** Own text plus the text of any child elements, so text inside unexpected markup is not lost. */
function deepText(element: LegacyXmlElement): string {
  if (element.children.length === 0) return element.text;
  return [element.text, ...element.children.map(deepText)].join(' ');
}

/** XML whitespace only (space, tab, CR, LF): a no-break space in a name is data. */
function collapseWhitespace(text: string): string {
  return text.replace(/[ \t\r\n]+/g, ' ').trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
