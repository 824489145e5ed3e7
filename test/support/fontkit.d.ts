/** The part of fontkit (pdfkit's font reader) the font coverage test uses; the package ships no types. */
declare module 'fontkit' {
  export interface Font {
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  export function openSync(path: string): Font;
}
