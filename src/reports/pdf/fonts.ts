/**
 * The fonts a PDF report embeds, and which one draws each character: Roboto for Latin, Greek and
 * Cyrillic; Noto Sans for the other scripts of the data (Ethiopic, Arabic, Bengali, Devanagari,
 * Lao, and Chinese, whose font comes in subsets by Unicode range, as @fontsource publishes it). pdfkit embeds only
 * the glyphs a document uses.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface FontFiles {
  normal: string;
  bold: string;
  italics: string;
  bolditalics: string;
}

const require = createRequire(import.meta.url);
const roboto = (file: string) => join(dirname(require.resolve('pdfmake/package.json')), 'fonts', 'Roboto', file);
const noto = (name: string, subset: string, weight: number) => require.resolve(`@fontsource/noto-sans-${name}/files/noto-sans-${name}-${subset}-${weight}-normal.woff`);
const family = (regular: string, bold: string): FontFiles => ({ normal: regular, bold, italics: regular, bolditalics: bold });

/** Scripts with one font file each, and the characters they draw. */
const SCRIPTS: readonly [name: string, characters: RegExp][] = [
  ['ethiopic', /\p{Script=Ethiopic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['bengali', /\p{Script=Bengali}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['lao', /\p{Script=Lao}/u],
];
/** Combining marks shared by scripts (Arabic's shadda): drawn by the font of the letter they sit on. */
const MARK = /\p{M}/u;
const HAN = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u;

/** The Chinese font's subsets: each file's Unicode ranges, read from the package's stylesheet. */
function hanSubsets(): { subset: string; ranges: [number, number][] }[] {
  const css = readFileSync(require.resolve('@fontsource/noto-sans-sc/400.css'), 'utf8');
  return [...css.matchAll(/noto-sans-sc-(\w+)-400-normal\.woff\)[^}]*?unicode-range:([^;]+);/g)].map(([, subset, ranges]) => ({
    subset,
    ranges: ranges.split(',').map((range) => {
      const [from, to = from] = range.trim().slice(2).split('-');
      return [parseInt(from, 16), parseInt(to, 16)] as [number, number];
    }),
  }));
}
const HAN_SUBSETS = hanSubsets();

export const FONTS: Readonly<Record<string, FontFiles>> = {
  Roboto: { normal: roboto('Roboto-Regular.ttf'), bold: roboto('Roboto-Medium.ttf'), italics: roboto('Roboto-Italic.ttf'), bolditalics: roboto('Roboto-MediumItalic.ttf') },
  ...Object.fromEntries(SCRIPTS.map(([name]) => [name, family(noto(name, name, 400), noto(name, name, 700))])),
  ...Object.fromEntries(HAN_SUBSETS.map(({ subset }) => [`han-${subset}`, family(noto('sc', subset, 400), noto('sc', subset, 700))])),
};

/** The font family that draws a character. */
export function familyOf(character: string): string {
  for (const [name, characters] of SCRIPTS) if (characters.test(character)) return name;
  if (HAN.test(character)) {
    const codePoint = character.codePointAt(0)!;
    const found = HAN_SUBSETS.find(({ ranges }) => ranges.some(([from, to]) => codePoint >= from && codePoint <= to));
    if (found) return `han-${found.subset}`;
  }
  return 'Roboto';
}

/** Text cut into runs that one font draws each: [text, family] in order. */
export function fontRuns(text: string): [string, string][] {
  const runs: [string, string][] = [];
  for (const character of text) {
    const last = runs[runs.length - 1];
    const name = last && MARK.test(character) ? last[1] : familyOf(character);
    if (last && last[1] === name) last[0] += character;
    else runs.push([character, name]);
  }
  return runs;
}
