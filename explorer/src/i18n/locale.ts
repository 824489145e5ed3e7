/**
 * Which language the explorer speaks: the one chosen with its switch (kept in this browser's
 * localStorage), else the first of the browser's own languages it speaks, else English. Until
 * main.tsx sets it (and outside a browser: the tests that read the dictionaries) it is English.
 */
export const LOCALES = ['en', 'es', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

/** Each language named in itself, as the switch offers it. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', es: 'Español', fr: 'Français' };

const KEY = 'rsr-api.locale';
let current: Locale = 'en';

export const locale = (): Locale => current;

const known = (tag: string | null | undefined): Locale | undefined => LOCALES.find((code) => tag?.toLowerCase().split('-')[0] === code);

/** The chosen language, or the browser's. */
export function preferred(): Locale {
  let chosen: string | null = null;
  try {
    chosen = localStorage.getItem(KEY);
  } catch {
    // Storage may be refused (a private window's policy): the browser's languages decide.
  }
  return known(chosen) ?? navigator.languages.map(known).find(Boolean) ?? known(navigator.language) ?? 'en';
}

/** Speaks `next` from now on: the page's `lang` and title follow; `remember` keeps the choice for the next visit. */
export function setLocale(next: Locale, remember = false): void {
  current = next;
  document.documentElement.lang = next;
  if (!remember) return;
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // Not remembered, but spoken in this tab all the same.
  }
}
