/**
 * The explorer in English, Spanish and French: `t(key, ...values)` is a text of the dictionary of
 * the language spoken now (locale.ts). A key or value a dictionary lacks fails `tsc`, not a reader.
 */
import { en, type Dictionary } from './en';
import { es } from './es';
import { fr } from './fr';
import { locale, type Locale } from './locale';

export { bytes, date, list, num } from './format';
export { LANGUAGE_NAMES, LOCALES, locale, preferred, setLocale, type Locale } from './locale';
export type { ChartNoun } from './en';

const DICTIONARIES: Record<Locale, Dictionary> = { en, es, fr };

type Key = keyof Dictionary;
/** The values a text takes: none for a plain text, a function's parameters for the others. */
type Values<K extends Key> = Dictionary[K] extends (...values: infer V) => string ? V : [];

export function t<K extends Key>(key: K, ...values: Values<K>): string {
  const text = DICTIONARIES[locale()][key] as string | ((...values: unknown[]) => string);
  return typeof text === 'function' ? text(...values) : text;
}
