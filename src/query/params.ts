/**
 * The query string, decoded once as Django's QueryDict does it (application/x-www-form-urlencoded:
 * `+` is a space, %XX are UTF-8 bytes, bad bytes become U+FFFD), kept as ordered pairs so that
 * links can carry every parameter back (blank values and repeated keys too).
 */
export type QueryPairs = readonly (readonly [string, string])[];

export function parseQueryString(raw: string): QueryPairs {
  return [...new URLSearchParams(raw)];
}

/** The value a Django view reads for `key`: the last one given. */
export function lastValue(pairs: QueryPairs, key: string): string | undefined {
  for (let index = pairs.length - 1; index >= 0; index -= 1) {
    if (pairs[index][0] === key) return pairs[index][1];
  }
  return undefined;
}

/** Keys compared by code point, as Python sorts strings (UTF-8 byte order is code point order). */
function byKey(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] === b[0] ? 0 : Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0]));
}

/**
 * `base` with the request's parameters, `name` set to `value` (or removed when null), keys sorted
 * (a stable sort: repeated keys keep their order), encoded as an HTML form does (http.md).
 */
export function linkWith(base: string, pairs: QueryPairs, name: string, value: string | null): string {
  const kept = pairs.filter(([key]) => key !== name);
  if (value !== null) kept.push([name, value]);
  kept.sort(byKey);
  const query = new URLSearchParams(kept.map(([key, text]): [string, string] => [key, text])).toString();
  return query ? `${base}?${query}` : base;
}
