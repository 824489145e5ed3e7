/**
 * Text widths in the fonts a PDF report embeds, to size table columns from their content
 * before pdfmake lays them out. Each character's advance width is read from the font file
 * through pdfkit (the PDF library pdfmake draws with, and opens the same files with), once per
 * character and font; a word's width is their sum. That leaves out kerning, which in these fonts
 * moves a word by far less than the `SLACK` a column is given on top of its longest word.
 */
import { createRequire } from 'node:module';
import { FONTS, fontRuns } from './fonts.ts';

interface GlyphSource {
  unitsPerEm: number;
  glyphForCodePoint(codePoint: number): { advanceWidth: number };
}
interface PdfKitDocument {
  font(source: string): { _font: { font: GlyphSource } };
}

const require = createRequire(import.meta.url);
// pdfkit is pdfmake's own dependency: resolved from pdfmake, so that both measure with one copy.
const PDFKit = createRequire(require.resolve('pdfmake'))('pdfkit') as new (options: object) => PdfKitDocument;

/** What a width may be off by, at most, for kerning and rounding: a fraction of it and a little more. */
export const SLACK = { share: 0.03, points: 0.8 };

let opener: PdfKitDocument | undefined;
const glyphFonts = new Map<string, GlyphSource>();
/** Advance widths at size 1, per font file and character. */
const advances = new Map<string, Map<number, number>>();

function fontOf(file: string): GlyphSource {
  let font = glyphFonts.get(file);
  if (!font) {
    opener ??= new PDFKit({ autoFirstPage: false, compress: false });
    font = opener.font(file)._font.font;
    glyphFonts.set(file, font);
  }
  return font;
}

function advance(file: string, codePoint: number): number {
  let widths = advances.get(file);
  if (!widths) advances.set(file, (widths = new Map()));
  let width = widths.get(codePoint);
  if (width === undefined) {
    const font = fontOf(file);
    width = font.glyphForCodePoint(codePoint).advanceWidth / font.unitsPerEm;
    widths.set(codePoint, width);
  }
  return width;
}

/** The width of a text at font size 1, each run in the font that draws it (bold: the bold face). */
export function textWidth(text: string, bold = false): number {
  let width = 0;
  for (const [run, family] of fontRuns(text)) {
    const file = FONTS[family][bold ? 'bold' : 'normal'];
    for (const character of run) width += advance(file, character.codePointAt(0)!);
  }
  return width;
}

/** Characters that a line may break after or before with no space: Chinese characters (and their punctuation). */
const HAN = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u;

/**
 * The pieces of a text that never break: words between spaces (a hyphenated word is one piece,
 * see render.ts), each Chinese character on its own.
 */
export function unbreakable(text: string): string[] {
  const pieces: string[] = [];
  for (const token of text.split(/\s+/)) {
    if (!HAN.test(token)) {
      if (token) pieces.push(token);
      continue;
    }
    let rest = '';
    for (const character of token) {
      if (HAN.test(character)) {
        if (rest) pieces.push(rest);
        pieces.push(character);
        rest = '';
      } else rest += character;
    }
    if (rest) pieces.push(rest);
  }
  return pieces;
}

/** A text's narrowest (its longest piece that never breaks) and widest (unbroken) width at size 1. */
export function textExtent(lines: readonly string[], bold = false, noWrap = false): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const line of lines) {
    const whole = textWidth(line.trimEnd(), bold);
    max = Math.max(max, whole);
    min = Math.max(min, noWrap ? whole : Math.max(0, ...unbreakable(line).map((piece) => textWidth(piece, bold))));
  }
  return { min, max };
}
