import { finished } from 'node:stream/promises';
import PDFDocument from 'pdfkit';
import { FileSink } from '../../core/files/file-sink';
import { QR_QUIET_ZONE, qrCodePath } from '../samples';
import { LabelLayout, labelPosition } from './label-layouts';

/** What one label shows: a QR code of `url`, the IGSN, the name and a few `Field: value` lines. */
export interface LabelContent {
  url: string;
  igsn: string;
  name: string;
  lines: string[];
}

/** Space between a label's edge and what is printed on it, and between the code and the text. */
const PADDING = 4;

/**
 * A PDF of labels written with pdfkit, label by label, to a file (so a worker holds one page of
 * samples at a time, not the document): each label holds a QR code (drawn as vector paths from
 * the qrcode package's modules, so it prints sharp at any resolution) on its left, filling its
 * height, and the text to its right, cut with an ellipsis where it does not fit. pdfkit's standard
 * Helvetica covers Latin-1 (WinAnsi): characters beyond it print as blanks or substitutes.
 */
export class LabelSheetWriter {
  private readonly document: PDFKit.PDFDocument;
  private readonly sink: FileSink;
  private count = 0;
  private pages = 0;

  constructor(
    path: string,
    private readonly layout: LabelLayout,
    info: { title: string },
  ) {
    this.sink = new FileSink(path);
    this.document = new PDFDocument({
      size: [layout.pageWidth, layout.pageHeight],
      margin: 0,
      autoFirstPage: false,
      info: { Title: info.title, Creator: 'Sample Registry', Producer: 'Sample Registry' },
    });
    this.document.pipe(this.sink.stream);
  }

  async write(labels: readonly LabelContent[]): Promise<void> {
    this.sink.check();
    for (const label of labels) {
      const position = labelPosition(this.layout, this.count++);
      if (position.page >= this.pages) {
        this.document.addPage();
        this.pages += 1;
      }
      await this.drawLabel(label, position.x, position.y);
    }
  }

  private async drawLabel(label: LabelContent, x: number, y: number): Promise<void> {
    const { labelWidth: width, labelHeight: height } = this.layout;
    const doc = this.document;
    const code = await qrCodePath(label.url);
    // The code fills the label's height (less padding), leaving most of a wide label to the text;
    // its quiet zone is part of that square.
    const side = Math.min(height - 2 * PADDING, width * 0.42);
    const module = side / (code.modules + 2 * QR_QUIET_ZONE);
    const codeX = x + PADDING + QR_QUIET_ZONE * module;
    const codeY = y + (height - side) / 2 + QR_QUIET_ZONE * module;
    doc.save();
    doc.translate(codeX, codeY).scale(module);
    doc.path(code.path).lineWidth(1).strokeColor('black').stroke();
    doc.restore();

    const textX = x + PADDING + side + PADDING;
    const textWidth = width - (textX - x) - PADDING;
    const scale = Math.min(1, Math.max(0.6, height / 108));
    let cursor = y + PADDING + 2 * scale;
    const line = (text: string, font: string, size: number, maxLines: number) => {
      const bottom = y + height - PADDING;
      if (cursor + size > bottom) return;
      doc.font(font).fontSize(size);
      const lineHeight = doc.currentLineHeight(true);
      const room = Math.min(maxLines * lineHeight, bottom - cursor);
      doc.text(text, textX, cursor, { width: textWidth, height: room, ellipsis: true, lineBreak: maxLines > 1 });
      cursor += Math.min(doc.heightOfString(text, { width: textWidth }), room) + 1.5 * scale;
    };
    // The IGSN is printed whole: its font shrinks to fit the line rather than being cut.
    doc.font('Helvetica-Bold').fontSize(9 * scale);
    const igsnWidth = doc.widthOfString(label.igsn);
    line(label.igsn, 'Helvetica-Bold', Math.max(4, 9 * scale * Math.min(1, textWidth / igsnWidth) - 0.05), 1);
    line(label.name, 'Helvetica', 8.5 * scale, 2);
    for (const text of label.lines) line(text, 'Helvetica', 7 * scale, 1);
  }

  /** Completes the document; resolves once every byte is on disk. */
  async finish(): Promise<void> {
    if (this.pages === 0) this.document.addPage();
    this.document.end();
    await finished(this.sink.stream);
    this.sink.check();
  }

  abort(): void {
    this.sink.destroy();
  }
}
