/**
 * A deep page read in SQL from a noted position. Walking to it from the start would probe every
 * row before it for visibility; instead the positions 0, SEEK_STEP, 2·SEEK_STEP, … of the list
 * in its order are noted as pages that deep are asked for (once per version of the list's
 * tables; those missing, by one statement that walks from the last noted to the deepest wanted),
 * and a page starts from the nearest one before it: it walks fewer than SEEK_STEP rows
 * however deep it is. A position is its record's id and, in an order by a field, that field's
 * value: the page's SQL starts where the order's index holds that value (list-sql.ts, `fromSeek`).
 *
 * Chosen for pages past SEEK_STEP rows (and not found in memory: in-memory.ts) of an unfiltered
 * list in id order, or in the order of one field (then `id`, as every order ends) that is never
 * null, or that may be null and is ordered descending: its nulls come first, so the records after
 * a position of a value are one range of its index from that value on, nulls left behind (at scale
 * 100, page 100 of comments by `-created_at` walked 2,000 rows, each one's project looked up: 15 ms
 * alone, 50–60 ms on PostgreSQL under the mixed load). Positions among the nulls are noted but
 * never started from (nor walked on from). In ascending order the nulls come last, after any
 * value: no single range of the index holds what follows one. A filtered list is read the way its
 * count chooses (in-sql.ts): a position of it noted by the planner's own plan could sort every
 * match of a broad range, once per mark. Only where it begins is noted, for free: the first
 * record of its first page as read. Its pages then start there, which spares a walk through the
 * rows before its first match (a search whose matches lie far along the order asked for) every
 * time the list is read again. That holds in a nullable field's ascending order too, where the
 * range from where it begins holds the values only, not the nulls after them: a page read from
 * there that comes up short reaches into the nulls, and is read again from the list's start
 * (`Start.beforeNulls`). At scale 100 budget items whose `other_extra` holds `ma` by `label`: all
 * 43,510 matches lie past 690,000 other items in that order, a walk of 78–140 ms for each page
 * asked, 0.3 ms from where the list begins.
 * Report definitions, a short list, are read as they are.
 */
import { filtersAnything, type FilterTree } from '../../query/filters.ts';
import { storedFields, type Caller, type Resource } from '../../resources/define.ts';
import type { CacheDescription } from '../caches.ts';
import { VersionedCache } from '../data-version.ts';
import { orderValue } from '../columns.ts';
import type { Columns, Engine } from '../engine/index.ts';
import { marksQuery, type PageRequest, type Seek } from '../list-sql.ts';
import { describeVersioned, LIST_TABLES, orderedListKey } from './shared.ts';

const SEEK_STEP = 250;

/**
 * Marks are noted for a version of the list's tables only once it has lasted this long (or was
 * the first this process saw): noting them walks to the deepest wanted, as far as the page's own
 * walk from the start, in a statement of its own. A table written to many times a second (budget
 * items, transactions and links with 5 % writes at scale 100) had its marks noted anew for nearly
 * every deep page, two statements queued behind the reader threads' scans where one would do.
 */
const MARKS_AFTER_MS = 250;

interface Marks {
  positions: Seek[];
  complete: boolean;
  /** Extensions run one after the other: concurrent deep pages note each position once. */
  extending: Promise<unknown>;
}

/** The declaration of the page's first order field. */
const firstField = (resource: Resource, page: PageRequest) => storedFields(resource).find(([name]) => name === page.order[0].field)?.[1];

/**
 * Whether pages in this order can start from noted positions: `id` alone, or one field then `id`,
 * the field never null or ordered descending (not where visibility goes through organisations);
 * from where a filtered list begins (`beginning`), a nullable field ascending as well.
 */
function seekable(resource: Resource, page: PageRequest, beginning = false): boolean {
  if (resource.visibility.kind === 'organisations' || (page.pinned && resource.pinnedOrder)) return false;
  const [first, second] = page.order;
  if (page.order.length === 1) return first.field === 'id';
  if (page.order.length !== 2 || second.field !== 'id' || second.descending) return false;
  const field = firstField(resource, page);
  return field !== undefined && field.orderable === true && (!field.nullable || first.descending || beginning);
}

/** Where a page's SQL starts, how far past that its offset is, and whether the nulls that follow lie outside its range. */
export interface Start {
  seek: Seek;
  offset: number;
  /** In a nullable field's ascending order: a page that comes up short is read again from the list's start. */
  beforeNulls: boolean;
}

/** A position a page can start from, or walk on from to note more: not one among a field's nulls. */
const usable = (position: Seek) => position.value !== null;

export class SeekMarks {
  /** Noted positions of lists, per list as a caller sees it and order. */
  readonly marks = new VersionedCache<Marks>();
  /** Where filtered lists begin, per list as a caller sees it and order. */
  readonly starts = new VersionedCache<Seek>();
  /** How many of a filtered list's records come before its nulls, in a nullable field's ascending order, where a page read from its start found the end. */
  readonly valuesEnds = new VersionedCache<number>();
  /** How long a version must have lasted before marks are noted for it (tests: 0). */
  lastingMs = MARKS_AFTER_MS;
  /** The version of each resource's tables last seen, and since when (-Infinity: the first seen). */
  private readonly versions = new Map<string, { version: number; since: number }>();
  private readonly engine: Engine;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /** Where the page's SQL starts and how far past that its offset is; null to read it from the start. */
  async seekFor(resource: Resource, caller: Caller, page: PageRequest, version: number, filters?: FilterTree): Promise<Start | null> {
    const key = orderedListKey(resource, caller, page, filters);
    if (filtersAnything(filters)) {
      const start = seekable(resource, page, true) ? this.starts.peek(version, key) : undefined;
      if (!start) return null;
      const beforeNulls = firstField(resource, page)?.nullable === true && !page.order[0].descending;
      // Past where its values end (found by a page read from the start before), a page reaches into the nulls.
      const valuesEnd = beforeNulls ? await this.valuesEnds.peek(version, key) : undefined;
      if (valuesEnd !== undefined && page.offset + page.limit > valuesEnd) return null;
      return { seek: await start, offset: page.offset, beforeNulls };
    }
    if (!seekable(resource, page)) return null;
    if (page.offset < SEEK_STEP) return null;
    if (!this.marks.peek(version, key) && !this.lasted(resource, version)) return null;
    const marks = await this.marks.get(version, key, async () => ({ positions: [], complete: false, extending: Promise.resolve() }));
    const wanted = Math.floor(page.offset / SEEK_STEP);
    const nullable = firstField(resource, page)?.nullable === true;
    const extension = marks.extending.then(async () => {
      if (marks.complete || marks.positions.length > wanted) return;
      // Noted so far only among the nulls: noted again from the list's start.
      const last = marks.positions.at(-1);
      if (last && !usable(last)) marks.positions.length = 0;
      const count = wanted + 1 - marks.positions.length;
      const query = await marksQuery(this.engine, resource, caller, filters, page.order, marks.positions.at(-1) ?? null, SEEK_STEP, count);
      const rows = await this.engine.runLong(query.compile());
      for (const row of rows) {
        // A field declared never null that holds one (a database written by hand) is walked.
        if (row.value === null && !nullable) break;
        marks.positions.push('value' in row ? { id: Number(row.id), value: row.value } : { id: Number(row.id) });
      }
      if (marks.positions.length <= wanted) marks.complete = true;
    });
    marks.extending = extension.catch(() => undefined); // a failed query fails this request only
    await extension;
    let step = Math.min(wanted, marks.positions.length - 1);
    while (step >= 1 && !usable(marks.positions[step])) step -= 1;
    if (step < 1) return null;
    return { seek: marks.positions[step], offset: page.offset - step * SEEK_STEP, beforeNulls: false };
  }

  /** Whether the resource's tables have been at `version` a while, or since this process first looked. */
  private lasted(resource: Resource, version: number): boolean {
    const seen = this.versions.get(resource.name);
    // A read stamped before the latest write seen: its version is already over.
    if (seen && version < seen.version) return false;
    if (!seen || version > seen.version) this.versions.set(resource.name, { version, since: seen ? performance.now() : -Infinity });
    return performance.now() - this.versions.get(resource.name)!.since >= this.lastingMs;
  }

  /** Notes where a filtered list begins in its order: `first`, the first row of its first page as read. */
  noteStart(resource: Resource, caller: Caller, page: PageRequest, version: number, filters: FilterTree | undefined, first: Columns): void {
    if (page.offset !== 0 || !filtersAnything(filters) || !seekable(resource, page, true)) return;
    const [term] = page.order;
    const field = firstField(resource, page);
    const value = term.field === 'id' || !field ? undefined : orderValue(field, first[term.field]);
    if (value === null) return;
    const start = value === undefined ? { id: Number(first.id) } : { id: Number(first.id), value };
    void this.starts.get(version, orderedListKey(resource, caller, page, filters), async () => start);
  }

  /** Notes that `count` of a filtered list's records come before its nulls (a page read from where it begins came up short). */
  noteValuesEnd(resource: Resource, caller: Caller, page: PageRequest, version: number, filters: FilterTree | undefined, count: number): void {
    this.valuesEnds.put(version, orderedListKey(resource, caller, page, filters), count);
  }

  caches(): CacheDescription[] {
    return [
      describeVersioned('seek_marks', this.marks, `the position of every ${SEEK_STEP.toLocaleString('en')}th record of an unfiltered list in its order`, 'resource, what the caller may see, filters, order', LIST_TABLES),
      describeVersioned('list_starts', this.starts, 'where a filtered list begins in its order (its first record)', 'resource, what the caller may see, filters, order', LIST_TABLES),
      describeVersioned('list_values_ends', this.valuesEnds, 'how many of a filtered list\'s records come before its nulls, in a nullable field\'s ascending order', 'resource, what the caller may see, filters, order', LIST_TABLES),
    ];
  }
}
