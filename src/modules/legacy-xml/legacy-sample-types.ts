/**
 * SESAR 1.0 sample types (and `type > subtype` pairs) and the current object type each one means.
 * The `crosswalk` rows are the registry's published sample-type crosswalk; the `v1 schema` rows are
 * the values of the v1 XSD `sample_type` list that the crosswalk only knows as subtypes of
 * `Individual Sample` (or, for `U-Channel`, as `Core U-Channel`): v1 sent them without a parent.
 * docs/integrations/legacy-xml-mapping.md shows this table; a unit test fails when the two disagree.
 */
export interface LegacySampleTypeRow {
  /** The old value: a sample type, or `Type > Subtype`. */
  readonly legacy: string;
  /** Leaf label (or group label) of the current object-type vocabulary. */
  readonly objectType: string;
  readonly source: 'crosswalk' | 'v1 schema';
}

function crosswalk(legacy: string, objectType: string): LegacySampleTypeRow {
  return { legacy, objectType, source: 'crosswalk' };
}

function v1(legacy: string, objectType: string): LegacySampleTypeRow {
  return { legacy, objectType, source: 'v1 schema' };
}

export const LEGACY_SAMPLE_TYPES: readonly LegacySampleTypeRow[] = [
  crosswalk('Core', 'Core'),
  crosswalk('Core Catcher', 'Core catcher'),
  crosswalk('Core Half Round', 'Core half round'),
  crosswalk('Core Piece', 'Core piece'),
  crosswalk('Core Quarter Round', 'Core quarter round'),
  crosswalk('Core Section', 'Core section'),
  crosswalk('Core Section Half', 'Core section half'),
  crosswalk('Core Slab', 'Slab'),
  crosswalk('Core Sub-Piece', 'Core subpiece'),
  crosswalk('Core U-Channel', 'Core U-channel sample'),
  crosswalk('Core Whole Round', 'Core whole round'),
  crosswalk('CTD', 'CTD sample'),
  crosswalk('Cuttings', 'Cuttings'),
  crosswalk('Dredge', 'Dredge'),
  crosswalk('Experimental Specimen', 'Experiment product'),
  crosswalk('Experimental Specimen > Other', 'Analytical preparations'),
  crosswalk('Experimental Specimen > Thin Section', 'Thin section'),
  crosswalk('Grab', 'Grab'),
  crosswalk('Hole', 'Hole'),
  crosswalk('Individual Sample', 'Individual sample'),
  crosswalk('Individual Sample > Bead', 'Bead'),
  crosswalk('Individual Sample > Chemical Fraction', 'Chemical fraction'),
  crosswalk('Individual Sample > Cube', 'Cube'),
  crosswalk('Individual Sample > Culture', 'Cell culture'),
  crosswalk('Individual Sample > Cylinder', 'Cylinder'),
  crosswalk('Individual Sample > Gas', 'Gas in container'),
  crosswalk('Individual Sample > Human Tissue Sample', 'Human tissue'),
  crosswalk('Individual Sample > Liquid', 'Liquid in container'),
  crosswalk('Individual Sample > Mechanical Fraction', 'Mechanical fraction'),
  crosswalk('Individual Sample > Powder', 'Powder'),
  crosswalk('Individual Sample > Slab', 'Slab'),
  crosswalk('Individual Sample > Smear', 'Glass slide smear'),
  crosswalk('Individual Sample > Specimen', 'Individual sample'),
  crosswalk('Individual Sample > Squeeze Cake', 'Squeeze cake'),
  crosswalk('Individual Sample > Thin Section', 'Thin section'),
  crosswalk('Individual Sample > Toothpick', 'Toothpick'),
  crosswalk('Individual Sample > Wedge', 'Wedge'),
  crosswalk('Oriented Core', 'Oriented Core'),
  crosswalk('Other', 'Material sample'),
  crosswalk('Rock Powder', 'Powder'),
  crosswalk('Site', 'Site'),
  crosswalk('Terrestrial Section', 'Terrestrial section'),
  crosswalk('Trawl', 'Trawl'),
  v1('Bead', 'Bead'),
  v1('Chemical Fraction', 'Chemical fraction'),
  v1('Cube', 'Cube'),
  v1('Culture', 'Cell culture'),
  v1('Cylinder', 'Cylinder'),
  v1('Gas', 'Gas in container'),
  v1('Human Tissue Sample', 'Human tissue'),
  v1('Liquid', 'Liquid in container'),
  v1('Mechanical Fraction', 'Mechanical fraction'),
  v1('Powder', 'Powder'),
  v1('Slab', 'Slab'),
  v1('Smear', 'Glass slide smear'),
  v1('Specimen', 'Individual sample'),
  v1('Squeeze Cake', 'Squeeze cake'),
  v1('Thin Section', 'Thin section'),
  v1('Toothpick', 'Toothpick'),
  v1('U-Channel', 'Core U-channel sample'),
  v1('Wedge', 'Wedge'),
];

/**
 * How old clients spelled the same value differently: letter case, spaces, hyphens and underscores
 * do not count (`IndividualSample`, `individual sample`, `Core Sub-Piece`, `core_subpiece`).
 */
export function legacySampleTypeKey(value: string): string {
  return value
    .split('>')
    .map((part) => part.toLowerCase().replace(/[\s_-]+/g, ''))
    .join('>');
}

const OBJECT_TYPE_BY_KEY: ReadonlyMap<string, string> = new Map(
  LEGACY_SAMPLE_TYPES.map((row) => [legacySampleTypeKey(row.legacy), row.objectType]),
);

/** The object type a SESAR 1.0 sample type (or `Type > Subtype` pair) stands for; undefined when the table does not know it. */
export function objectTypeForLegacy(value: string): string | undefined {
  return OBJECT_TYPE_BY_KEY.get(legacySampleTypeKey(value));
}

/**
 * The object type for a `sample_type` / `sample_subtype` pair: the pair's row, else the subtype's
 * own row, else the subtype as sent (it may be a current label, `Polished thin section`); without a
 * subtype, the type's row, else the type as sent. What is sent as is goes to the object-type
 * resolver, which accepts current labels and refuses anything else with its own message.
 */
export function objectTypeForLegacyPair(type: string | undefined, subtype: string | undefined): string | undefined {
  if (subtype) {
    return (type ? objectTypeForLegacy(`${type}>${subtype}`) : undefined) ?? objectTypeForLegacy(subtype) ?? subtype;
  }
  return type ? (objectTypeForLegacy(type) ?? type) : undefined;
}
