/**
 * The records a filter does NOT match, as disjoint parts each one index range can read: a broad
 * filter (`section__gte=1&section__lte=5` over a million custom fields, `__isnull=False` over all
 * of a table) is counted per project as every record less the few it leaves out
 * (project-counts.ts), instead of as the many it keeps.
 *
 * Only filters of one indexed non-text field of the record itself: an AND of comparisons,
 * ranges, equalities and `isnull=False`. Every such term is false on NULL, so
 * NOT (t1 AND … AND tn) = (x IS NULL) OR (NOT t1) OR (t1 AND NOT t2) OR … OR (t1 AND … AND NOT tn),
 * whose parts are disjoint by construction (each part holds the terms before its own), and each
 * NOT ti among non-NULL values is one or two disjoint comparisons. No value is compared here:
 * an empty range (`gte=10&lte=5`) is as exact as any other.
 */
import type { FilterTerm, FilterTree } from '../query/filters.ts';
import { servedByIndex } from './filter-sql.ts';

const OPPOSITE = { gt: 'lte', gte: 'lt', lt: 'gte', lte: 'gt' } as const;

/** The term on the same field with another lookup and value. */
const as = (term: FilterTerm, lookup: FilterTerm['lookup'], value: unknown): FilterTerm => ({ ...term, lookup, value });

/** NOT term among non-NULL values, as disjoint alternatives (each an AND of terms); null where it is not one of the terms above. */
function negated(term: FilterTerm): FilterTerm[][] | null {
  switch (term.lookup) {
    case 'gt': case 'gte': case 'lt': case 'lte':
      return term.value === null ? null : [[as(term, OPPOSITE[term.lookup], term.value)]];
    case 'range': {
      const [low, high] = term.value as unknown[];
      if (low === null || high === null) return null;
      return [[as(term, 'lt', low)], [as(term, 'gte', low), as(term, 'gt', high)]];
    }
    case 'exact':
      if (term.value === null) return null;
      if (term.field.type === 'bool') return [[as(term, 'exact', !term.value)]];
      return [[as(term, 'lt', term.value)], [as(term, 'gt', term.value)]];
    case 'isnull':
      return term.value === false ? [] : null;
    default:
      return null;
  }
}

const and = (items: FilterTree[]): FilterTree => (items.length === 1 ? items[0] : { kind: 'and', items });

/** The disjoint parts of what `filters` leaves out, or null where they are not of the kind above. */
export function complementParts(filters: FilterTree | undefined): FilterTree[] | null {
  if (!filters) return null;
  const terms = filters.kind === 'and' ? filters.items : [filters];
  if (terms.length === 0 || !terms.every((term): term is FilterTerm => term.kind === 'term')) return null;
  const [first] = terms;
  const sameField = terms.every((term) => term.hops.length === 0 && term.name === first.name);
  // Text compares by its D7 key but tests NULL on the text itself, which no index holds.
  if (!sameField || first.field.type === 'text' || first.field.type === 'json' || !servedByIndex(first)) return null;
  const parts: FilterTree[] = [as(first, 'isnull', true)];
  for (const [index, term] of terms.entries()) {
    const alternatives = negated(term);
    if (!alternatives) return null;
    for (const alternative of alternatives) parts.push(and([...terms.slice(0, index), ...alternative]));
  }
  return parts;
}
