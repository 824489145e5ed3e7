/**
 * Decision D7: text sorts by lower(strip_accents(NFD(value))), compared code point by code point.
 * The key is computed here and stored beside the text, so SQLite (BINARY) and PostgreSQL
 * (COLLATE "C") compare the same bytes: UTF-8 byte order is code point order.
 */
const NON_SPACING_MARKS = /\p{Mn}/gu;
const ASCII = /^\p{ASCII}*$/u;

export function sortKey(value: string | null): string | null {
  if (value === null) return null;
  // ASCII has nothing to decompose or strip (most codes and many names).
  if (ASCII.test(value)) return value.toLowerCase();
  return value.normalize('NFD').replace(NON_SPACING_MARKS, '').toLowerCase();
}

/**
 * Two texts in D7 order, as the stores sort them: by their keys' code points (compared as UTF-8
 * bytes; JavaScript's `<` compares UTF-16 units, which puts characters beyond U+FFFF elsewhere).
 */
export function compareText(a: string | null, b: string | null): number {
  const [keyA, keyB] = [sortKey(a) ?? '', sortKey(b) ?? ''];
  return keyA === keyB ? 0 : Buffer.compare(Buffer.from(keyA), Buffer.from(keyB));
}

/** The column that holds the sort key of text field `field`. */
export const sortKeyColumn = (field: string): string => `${field}_sortkey`;
