/** Millimetres and inches in PDF points (1/72 inch). */
const MM = 72 / 25.4;
const INCH = 72;

/**
 * A page of labels: the page size, and where each label is on it, in points from the top left.
 * Sheets (A4, US Letter) hold a grid of labels; a roll (a label printer) has one label per page.
 */
export interface LabelLayout {
  description: string;
  pageWidth: number;
  pageHeight: number;
  columns: number;
  rows: number;
  labelWidth: number;
  labelHeight: number;
  /** Top left corner of the first label. */
  left: number;
  top: number;
  /** Distance from one label's left (top) edge to the next one's. */
  columnPitch: number;
  rowPitch: number;
}

function sheet(layout: Omit<LabelLayout, 'description'>, description: string): LabelLayout {
  return { description, ...layout };
}

function roll(width: number, height: number, description: string): LabelLayout {
  return {
    description,
    pageWidth: width,
    pageHeight: height,
    columns: 1,
    rows: 1,
    labelWidth: width,
    labelHeight: height,
    left: 0,
    top: 0,
    columnPitch: width,
    rowPitch: height,
  };
}

/** The layouts POST /api/samples/labels/ offers, by name: common sheets and label-printer rolls. */
export const LABEL_LAYOUTS = {
  'a4-3x7': sheet(
    {
      pageWidth: 210 * MM,
      pageHeight: 297 * MM,
      columns: 3,
      rows: 7,
      labelWidth: 63.5 * MM,
      labelHeight: 38.1 * MM,
      left: 7.2 * MM,
      top: 15.15 * MM,
      columnPitch: 66.04 * MM,
      rowPitch: 38.1 * MM,
    },
    'A4 sheet, 3 × 7 labels of 63.5 × 38.1 mm (Avery L7160 and compatibles)',
  ),
  'a4-2x4': sheet(
    {
      pageWidth: 210 * MM,
      pageHeight: 297 * MM,
      columns: 2,
      rows: 4,
      labelWidth: 99.1 * MM,
      labelHeight: 67.7 * MM,
      left: 4.65 * MM,
      top: 13.1 * MM,
      columnPitch: 101.6 * MM,
      rowPitch: 67.7 * MM,
    },
    'A4 sheet, 2 × 4 labels of 99.1 × 67.7 mm (Avery L7165 and compatibles)',
  ),
  'letter-3x10': sheet(
    {
      pageWidth: 8.5 * INCH,
      pageHeight: 11 * INCH,
      columns: 3,
      rows: 10,
      labelWidth: 2.625 * INCH,
      labelHeight: 1 * INCH,
      left: 0.1875 * INCH,
      top: 0.5 * INCH,
      columnPitch: 2.75 * INCH,
      rowPitch: 1 * INCH,
    },
    'US Letter sheet, 3 × 10 labels of 2⅝ × 1 in (Avery 5160 and compatibles)',
  ),
  'letter-2x5': sheet(
    {
      pageWidth: 8.5 * INCH,
      pageHeight: 11 * INCH,
      columns: 2,
      rows: 5,
      labelWidth: 4 * INCH,
      labelHeight: 2 * INCH,
      left: 0.15625 * INCH,
      top: 0.5 * INCH,
      columnPitch: 4.1875 * INCH,
      rowPitch: 2 * INCH,
    },
    'US Letter sheet, 2 × 5 labels of 4 × 2 in (Avery 5163 and compatibles)',
  ),
  'roll-62x29mm': roll(62 * MM, 29 * MM, 'Label printer roll, 62 × 29 mm (Brother DK-11209 and compatibles)'),
  'roll-2x1in': roll(2 * INCH, 1 * INCH, 'Label printer roll, 2 × 1 in (Zebra, Dymo and compatibles)'),
} as const satisfies Record<string, LabelLayout>;

export type LabelLayoutName = keyof typeof LABEL_LAYOUTS;
export const LABEL_LAYOUT_NAMES = Object.keys(LABEL_LAYOUTS) as LabelLayoutName[];

/** Where label `index` (0-based, in order) lands: its page (0-based) and its top-left corner on it. */
export function labelPosition(layout: LabelLayout, index: number): { page: number; x: number; y: number } {
  const perPage = layout.columns * layout.rows;
  const slot = index % perPage;
  return {
    page: Math.floor(index / perPage),
    x: layout.left + (slot % layout.columns) * layout.columnPitch,
    y: layout.top + Math.floor(slot / layout.columns) * layout.rowPitch,
  };
}
