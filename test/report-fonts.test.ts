/**
 * The PDF reports embed fonts that draw every character of the demo data (accents, Cyrillic,
 * Greek, Ethiopic, Arabic, Bengali, Devanagari, Lao and Chinese names, `&<>"`): each character, in regular and bold, has a glyph in
 * the font the renderer picks for it. A character without one would be drawn as an empty box.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSync, type Font } from 'fontkit';
import { generateDemo } from '../demo/generate.ts';
import { FONTS, fontRuns } from '../src/reports/pdf/fonts.ts';

test('the report fonts have a glyph for every character of the demo data and of Cyrillic text', () => {
  const texts = new Set<string>(['Вода для Кисуму — Ёё Її Єє Ўў &<>"\'']);
  for (const { records } of generateDemo({ scale: 1, seed: 1 })) {
    for (const record of records) for (const value of Object.values(record)) if (typeof value === 'string') texts.add(value);
  }
  // Each character as the renderer draws it: in the font of its run.
  const drawn = new Map<string, string>();
  for (const text of texts) for (const [run, family] of fontRuns(text)) for (const character of run) drawn.set(`${character}|${family}`, family);
  const fonts = new Map<string, Font>();
  const font = (path: string) => fonts.get(path) ?? fonts.set(path, openSync(path)).get(path)!;
  const missing: string[] = [];
  for (const [key, name] of drawn) {
    const codePoint = key.codePointAt(0)!;
    if (codePoint < 0x20) continue; // line breaks and tabs are layout, not glyphs
    const family = FONTS[name];
    for (const style of ['normal', 'bold'] as const) if (!font(family[style]).hasGlyphForCodePoint(codePoint)) missing.push(`${key} U+${codePoint.toString(16).toUpperCase()} ${style}`);
  }
  assert.ok(drawn.size > 100, `${drawn.size} characters`);
  assert.deepEqual(missing, []);
});
