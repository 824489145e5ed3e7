/**
 * A deep page read in SQL from a noted position. Walking to it from the start would probe every
 * row before it for visibility; instead the positions 0, SEEK_STEP, 2·SEEK_STEP, … of the list
 * in its order are noted as pages that deep are asked for (once per version of the list's
 * tables; those missing, by one statement that walks from the last noted to the deepest wanted),
 * and a page starts from the nearest one before it: it walks fewer than SEEK_STEP rows
 * however deep it is. A position is its record's id and, in an order by a field, that field's
 * value: the page's SQL starts where the order's index holds that value (list-sql.ts, `fromSeek`).
 * A write does not make the marks of a list whose every record holds its project stale: they are
 * carried to the new version (`carry`), each placed anew by the records of the projects the
 * change log names, the few that can have moved around it (`placeOf`).
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
import { entityOf } from '../../resources/index.ts';
import { tablesRead } from '../../resources/reads.ts';
import type { CacheDescription } from '../caches.ts';
import type { ChangedProjects } from '../changed-projects.ts';
import { VersionedCache } from '../data-version.ts';
import { orderValue, projectColumnName } from '../columns.ts';
import type { Columns, Engine } from '../engine/index.ts';
import { aroundQuery, marksQuery, walkQuery, type PageRequest, type Seek } from '../list-sql.ts';
import { describeVersioned, LIST_TABLES, orderedListKey } from './shared.ts';

const SEEK_STEP = 250;

/**
 * Marks that cannot be carried across writes are noted for a version of the list's tables only
 * once it has lasted this long (or was the first this process saw): noting them walks to the
 * deepest wanted, as far as the page's own walk from the start, in a statement of its own. A
 * table written to many times a second had its marks noted anew for nearly every deep page, two
 * statements queued behind the reader threads' scans where one would do.
 */
const MARKS_AFTER_MS = 250;

/** A write to more projects than this since the marks were noted makes them noted again: each is read to place them. */
const CARRY_PROJECTS = 64;

/**
 * Marks are carried only this deep (page 333 of 30): the walk keeps a project per record passed,
 * 40 KiB here, and a deeper one (`limit=1000&page=100` walks 99,000 records) is noted as marks
 * that are not carried, every 250th record returned rather than each.
 */
const CARRY_RECORDS = 10_000;

interface Marks {
  positions: Seek[];
  /** No more are noted: the list ended before the next (`ended`), or the marks are carried. */
  complete: boolean;
  ended?: boolean;
  /** Extensions run one after the other: concurrent deep pages note each position once. */
  extending: Promise<unknown>;
  /** The version the positions were noted at. */
  notedAt: number;
  /** Where marks are carried across writes (`carriable`): the project of every record walked, in order (position j is record j·SEEK_STEP). */
  projects?: Int32Array;
  /** Carried to a later version: the projects written since `notedAt`, and each position's place in the list now, as found. */
  carried?: { changed: ReadonlySet<number>; places: Map<number, Promise<number>> };
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
  /** Marks carried to a newer version (tests). */
  carries = 0;
  /** How long a version must have lasted before marks are noted for it (tests: 0). */
  lastingMs = MARKS_AFTER_MS;
  /** The version of each resource's tables last seen, and since when (-Infinity: the first seen). */
  private readonly versions = new Map<string, { version: number; since: number }>();
  private readonly engine: Engine;
  /** What the change log says of a stretch of versions, asked once for every entry behind. */
  private readonly changes: ChangedProjects;

  constructor(engine: Engine, changes: ChangedProjects) {
    this.engine = engine;
    this.changes = changes;
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
    const wanted = Math.floor(page.offset / SEEK_STEP);
    const marks = await this.marksAt(resource, caller, page, version, key, wanted);
    if (!marks) return null;
    if (!marks.complete && marks.positions.length <= wanted) await this.extend(resource, caller, page, marks, wanted);
    // The deepest usable position at or before the page's first record (a carried one may have moved past it).
    for (let step = Math.min(wanted, marks.positions.length - 1); step >= 1; step -= 1) {
      if (!usable(marks.positions[step])) continue;
      const place = await this.placeOf(resource, caller, page, marks, step);
      if (place <= page.offset) return { seek: marks.positions[step], offset: page.offset - place, beforeNulls: false };
    }
    return null;
  }

  /**
   * The list's marks at `version`: kept, carried from an older version where they reach the
   * position `wanted` (a deeper page notes them anew: it would walk as far from the deepest), or
   * (once the version has lasted, or where marks are carried) noted anew from none; null where the
   * page walks from the list's start.
   */
  private async marksAt(resource: Resource, caller: Caller, page: PageRequest, version: number, key: string, wanted: number): Promise<Marks | null> {
    const kept = this.marks.peek(version, key);
    if (kept) return kept;
    const lasted = this.lasted(resource, version);
    const carriable = this.carriable(resource);
    if (!lasted && !carriable) return null;
    const older = carriable ? this.marks.latest(key) : undefined;
    if (older && older.version > version) return null; // a request made before the latest write seen
    return this.marks.get(version, key, async () => {
      const carried = older && older.version < version ? await this.carry(resource, await older.value.catch(() => null), version, wanted) : null;
      return carried ?? { positions: [], complete: false, extending: Promise.resolve(), notedAt: version, projects: carriable ? new Int32Array(0) : undefined };
    });
  }

  /**
   * Whether a list's marks are carried across writes: where every record holds its project (a
   * foreign key never null), so that the change log names every project a write changed records
   * of (data-version.ts). A write to budget items, transactions or links made every deep page of
   * theirs walk from the list's start: with 5 % writes at scale 100, the deep pages of links took
   * 23 ms on average under the mixed load, 4.9 ms from carried marks (transactions 24 → 8.7 ms,
   * budget items 23 → 12 ms, whose many nullable fields have no marks ascending).
   */
  private carriable(resource: Resource): boolean {
    const entity = entityOf(resource.table);
    const name = projectColumnName(entity);
    const declared = name === null ? undefined : entity.fields[name];
    return declared?.kind === 'stored' && declared.references === 'project' && !declared.nullable;
  }

  /**
   * `older`'s positions at `version`, where only the list's own table changed since they were
   * noted (every other table it is read from, visibility's included, as it was), in a few
   * projects the change log names; else null. A position is a place in the order, whatever
   * became of its record: the records before it now are those before it then, less those of the
   * projects written, plus theirs before it now (`placeOf`).
   */
  private async carry(resource: Resource, older: Marks | null, version: number, wanted: number): Promise<Marks | null> {
    if (!older?.projects || (!older.ended && older.positions.length <= wanted)) return null;
    const versions = this.engine.versionNow() ?? (await this.engine.version());
    if (tablesRead(resource).some((table) => table !== resource.table && (versions.tables.get(table) ?? 0) > older.notedAt)) return null;
    const changed = await this.changes.between(resource.table, older.notedAt, version);
    if (!changed || changed.size > CARRY_PROJECTS) return null;
    this.carries += 1;
    // Its own copy of the positions: those noted later at the older version have no projects here.
    return { positions: older.positions.slice(), projects: older.projects, complete: true, ended: older.ended, extending: Promise.resolve(), notedAt: older.notedAt, carried: { changed, places: new Map() } };
  }

  /**
   * How many records of the list come before position `step` now: `step`·SEEK_STEP where the marks
   * were noted at this version; for carried ones, that less the records of the projects written
   * that were before it then (the projects walked say which), plus those before it now (read on
   * the service's own connection: a few projects' records, through the project's index).
   */
  private placeOf(resource: Resource, caller: Caller, page: PageRequest, marks: Marks, step: number): Promise<number> {
    const noted = step * SEEK_STEP;
    const { carried, projects } = marks;
    if (!carried || !projects) return Promise.resolve(noted);
    let place = carried.places.get(step);
    if (!place) {
      place = (async () => {
        if (carried.changed.size === 0) return noted;
        let before = 0;
        for (let index = 0; index < noted; index += 1) if (carried.changed.has(projects[index])) before += 1;
        const query = await aroundQuery(this.engine, resource, caller, page.order, marks.positions[step], [...carried.changed]);
        const [{ records, after }] = await this.engine.run(query.compile());
        return noted - before + (Number(records) - Number(after ?? 0));
      })();
      carried.places.set(step, place);
      place.catch(() => carried.places.delete(step)); // a failed read fails this request only
    }
    return place;
  }

  /** Notes positions up to `wanted` (the deepest noted, or the list's start, walked on from). */
  private async extend(resource: Resource, caller: Caller, page: PageRequest, marks: Marks, wanted: number): Promise<void> {
    const nullable = firstField(resource, page)?.nullable === true;
    const extension = marks.extending.then(async () => {
      if (marks.complete || marks.positions.length > wanted) return;
      // Noted so far only among the nulls: noted again from the list's start.
      const last = marks.positions.at(-1);
      if (last && !usable(last)) {
        marks.positions.length = 0;
        if (marks.projects) marks.projects = new Int32Array(0);
      }
      const count = wanted + 1 - marks.positions.length;
      const from = marks.positions.at(-1) ?? null;
      for (const row of await this.walk(resource, caller, page, marks, from, count)) {
        // A field declared never null that holds one (a database written by hand) is walked.
        if (row.value === null && !nullable) break;
        marks.positions.push('value' in row ? { id: Number(row.id), value: row.value } : { id: Number(row.id) });
      }
      if (marks.positions.length <= wanted) marks.complete = marks.ended = true;
    });
    marks.extending = extension.catch(() => undefined); // a failed query fails this request only
    await extension;
  }

  /**
   * The next `count` positions after `from` (or from the list's start). Where marks are carried,
   * every record up to the last position is read, its project kept (`walkQuery`), and the version
   * the statement saw with them: positions noted at another version than the marks' (a write
   * came between the request and its walk) are not carried. Else only the positions are read
   * (`marksQuery`).
   */
  private async walk(resource: Resource, caller: Caller, page: PageRequest, marks: Marks, from: Seek | null, count: number): Promise<Columns[]> {
    if ((marks.positions.length + count) * SEEK_STEP > CARRY_RECORDS) marks.projects = undefined;
    if (!marks.projects) return this.engine.runLong((await marksQuery(this.engine, resource, caller, undefined, page.order, from, SEEK_STEP, count)).compile());
    // Row i is i records past `from` (which is row 0, known) or past the list's start.
    const skipped = from === null ? 0 : 1;
    const rows = await this.engine.runLong((await walkQuery(this.engine, resource, caller, page.order, from, tablesRead(resource), (count - 1 + skipped) * SEEK_STEP + 1)).compile());
    const walked = rows.slice(skipped);
    if (rows.length > 0 && Number(rows[0].stamp) !== marks.notedAt) marks.projects = undefined;
    else if (marks.projects) {
      const projects = new Int32Array(marks.projects.length + walked.length);
      projects.set(marks.projects);
      walked.forEach((row, index) => (projects[marks.projects!.length + index] = Number(row.project)));
      marks.projects = projects;
    }
    return rows.filter((_, index) => index >= skipped && index % SEEK_STEP === 0);
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
      describeVersioned('seek_marks', this.marks, `the position of every ${SEEK_STEP.toLocaleString('en')}th record of an unfiltered list in its order`, 'resource, what the caller may see, filters, order', `${LIST_TABLES}; where every record holds its project (a foreign key), a write to the list's own table carries them instead, placed anew by the projects the change log names (up to ${CARRY_PROJECTS})`),
      describeVersioned('list_starts', this.starts, 'where a filtered list begins in its order (its first record)', 'resource, what the caller may see, filters, order', LIST_TABLES),
      describeVersioned('list_values_ends', this.valuesEnds, 'how many of a filtered list\'s records come before its nulls, in a nullable field\'s ascending order', 'resource, what the caller may see, filters, order', LIST_TABLES),
    ];
  }
}
