/**
 * A page read in SQL: the caller's matching records in the requested order, from a noted position
 * when seek.ts found one. Every orderable field has indexes for either direction (indexes.ts), so
 * page 1 of any order reads its own rows. With filters, the count is known before the page is
 * read, and `way` chooses how the page is found: by walking the order's index and checking the
 * filters row by row, by reading only the projects that hold the matches, by letting the
 * filters' indexes find every match and sorting them, or by walking the order's index
 * against the filters' matches read once and kept in memory (kept-matches.ts).
 *
 * A walk that came up short is taken again eight times as long, while that is still shorter than
 * the next way: matches that begin a little further along the order than their share says are
 * met by a walk all the same (at scale 100, links searched for `ar` by `-url`: 5 of the page's
 * 20 in the first 1,000 rows, all within 8,000, read in 12 ms, where the next way sorts 112,000
 * matches in 500). A walk short even so is remembered for its list and order (not per version: it says where
 * the matches lie along the order, which a write hardly moves, and a page is exact whichever way
 * reads it): the list's other pages, and the same page asked again, are read the next way at once
 * instead of walking first, in vain, every time (at scale 100, a prefix search ordered by another
 * field: a 135 ms walk before a 410 ms sort).
 *
 * The compiled query is kept per version of the list's tables under every input it is made from,
 * values included (a key that holds everything cannot pick another query's SQL or parameters):
 * the same page read again after its answer was evicted or made stale costs no building.
 */
import { CompiledQuery } from 'kysely';
import { filterKey, filtersAnything, type FilterTree } from '../../query/filters.ts';
import type { Caller, Resource } from '../../resources/define.ts';
import { entityOf } from '../../resources/index.ts';
import type { CacheDescription } from '../caches.ts';
import { projectColumnName } from '../columns.ts';
import { VersionedCache } from '../data-version.ts';
import type { Columns, Engine } from '../engine/index.ts';
import { anyOnKeys, decidedOnKeys, servedByIndex } from '../filter-sql.ts';
import type { IdSet } from '../idset.ts';
import { pageQuery, type PageRequest, type Seek } from '../list-sql.ts';
import { visibilityKey } from '../visibility.ts';
import type { KeptMatches } from './kept-matches.ts';
import { describeVersioned, LIST_TABLES, LONG_ROWS, orderedListKey } from './shared.ts';

/** A walk stops after this many times the rows it should meet, and never before WALK_MIN. */
const WALK_SLACK = 4;
const WALK_MIN = 1000;
/** A walk that came up short is taken again this many times as long, while still shorter than the next way. */
const WALK_GROWTH = 8;

/**
 * An entry of an order's index read in order costs about this many times less than a row read by
 * id: the page's ids found in the order's index (`idsInOrder`) beat a sort of the matches' rows
 * where the walk to the page's end is at most this many times the matches.
 */
const INDEX_ENTRIES_PER_ROW = 8;

/**
 * Reading a list's matching ids for a set kept in memory (kept-matches.ts) costs about this many
 * times less per record than a walk reading rows and checking them (at scale 100 in `sqlite3`,
 * custom fields' values like `he`: the ids among all 932,000 in 0.104 s, a walk of 64,000 rows in
 * `type` order 0.106 s; rounded up, as the set then serves the list's every other order too).
 */
const MATCH_IDS_PER_ROW = 16;

/** A sorted page finds the matches apart first (`matchesFirst`) where they are at most 1/APART_SHARE of the table. */
const APART_SHARE = 4;

/**
 * Where the dialect does not find a sorted page's matches apart (`matchesApart`: PostgreSQL), they
 * are so all the same where they are at most this many, their ids gathered as one array
 * (`Dialect.amongFew`): its planner, which cannot know how many of a text's keys or of a pattern's
 * rows match, walked the order's index checking each row (at scale 100, links whose caption holds
 * `ma` by `-url`: 357,000 rows read for 534 matches, 302 ms; their ids apart, 8 ms).
 */
const FEW_APART = 10_000;

/** A page is read within the projects that hold its matches when they are at most this many (one parameter, and part of the statement's key). */
const WITHIN_PROJECTS = 1000;

/** Lookups an index of the field serves as one range of it, in its order. */
const RANGES = new Set(['exact', 'gt', 'gte', 'lt', 'lte', 'range']);

/**
 * Whether every filter is a range (or an equality) of the order's own field: the planner then
 * reads the page from the order's index, from where the range begins (`offset + limit` entries;
 * SQLite walks a nullable field's descending index from its end to the range instead), cheaper
 * than any other way (at scale 100, targets `value__gte=1000` by `value`: 2 ms; their ids checked
 * in the order's index against the 2 million matches, 1.5 s; transactions `value__lte=1000` by
 * `-value`, walked from the index's end: 26 ms).
 */
function onOrdersOwnIndex(resource: Resource, page: PageRequest, filters: FilterTree): boolean {
  const terms = filters.kind === 'and' ? filters.items : [filters];
  const [first] = page.order;
  return !(page.pinned && resource.pinnedOrder) && first !== undefined && terms.every((term) => term.kind === 'term' && term.hops.length === 0 && term.name === first.field && RANGES.has(term.lookup));
}

/**
 * Whether the order's indexes carry what decides who sees a record, its project (indexes.ts,
 * carriedBy): the tables that grow with the projects. A walk there reads the index alone when it
 * selects ids only; a table of few, small rows (organisations: 40,000 at scale 100) is walked as
 * cheaply reading them, and its page read again by id cost more (the grid at scale 100).
 */
const seenFromIndex = (resource: Resource) => resource.visibility.kind === 'project' && projectColumnName(entityOf(resource.table)) !== null;

/** Where a list's matching records are, if in at most `most` projects (ProjectCounts#whereMatches), for lists whose counts are kept per project. */
export type WhereMatches = (resource: Resource, caller: Caller, filters: FilterTree, most: number) => Promise<{ projects: number[]; rows: number } | null>;

/** How a page is found (SqlPages#way): the first way, the next where a walk comes up short, and what each costs in rows walked. */
interface Way {
  first: Pick<PageRequest, 'walk' | 'within' | 'matchesFirst' | 'idsInOrder' | 'idsFirst'>;
  then: Pick<PageRequest, 'within' | 'matchesFirst' | 'idsInOrder' | 'idsFirst'>;
  /** What the next way reads (a walk taken again longer stops short of it). */
  nextCost: number;
  /** What reading the matches for a kept set costs, where the page may be read among them; else null. */
  among: number | null;
  /** The rows a walk of the order's index reads to the page's end, by the matches' share of the table. */
  expected: number;
}

/** The version short walks are kept at: always current (see above). */
const ANY_VERSION = 0;

export class SqlPages {
  /** Lists, as a caller sees them in an order, whose walk came up short. */
  private readonly shortWalks = new VersionedCache<true>({ maxEntries: 5000 });
  /** A thousand: keyed by values too, most are never asked for again (the answers are kept apart, http/response-cache.ts). */
  private readonly statements = new VersionedCache<CompiledQuery>({ maxEntries: 1000 });
  private readonly engine: Engine;
  /** How many records the table holds (an administrator's unfiltered count). */
  private readonly tableSize: (resource: Resource) => Promise<number>;
  private readonly whereMatches: WhereMatches;
  private readonly kept: KeptMatches;

  constructor(engine: Engine, tableSize: (resource: Resource) => Promise<number>, whereMatches: WhereMatches, kept: KeptMatches) {
    this.engine = engine;
    this.tableSize = tableSize;
    this.whereMatches = whereMatches;
    this.kept = kept;
  }

  /** The page's rows as the database gives them; `total` is the list's count. */
  async read(resource: Resource, caller: Caller, page: PageRequest, total: number, version: number, filters?: FilterTree, seeking?: { seek: Seek; offset: number } | null): Promise<Columns[]> {
    const offset = seeking?.offset ?? page.offset;
    const way = await this.way(resource, caller, { ...page, offset }, total, filters);
    const among = (set: IdSet) => this.run(resource, caller, { ...page, offset, among: true }, version, filters, seeking, set);
    const kept = way.among !== null && filters ? await this.kept.of(resource, caller, filters, version, false) : null;
    if (kept) return among(kept);
    // Where the next way reads every match anyway, they are read once and kept for every order.
    const readsSet = way.among !== null && filters !== undefined && this.kept.mayRead(resource, version, filters);
    const then = async () => {
      const set = readsSet && filters ? await this.kept.of(resource, caller, filters, version, true) : null;
      return set ? among(set) : this.run(resource, caller, { ...page, offset, ...way.then }, version, filters, seeking);
    };
    const nextCost = readsSet ? (way.among as number) : way.nextCost;
    if (!way.first.walk) return then();
    // A long walk of rows costing more than reading the matches for the set and walking the
    // order's index against it: read so at once, and every later page is the short walk among
    // them (a small table's few matches: organisations whose LinkedIn address holds `he`, 100 of
    // 40,000 at scale 100, walked some 12,000 rows, 125 ms, for each page asked).
    if (readsSet && way.expected >= WALK_MIN && nextCost + way.expected / INDEX_ENTRIES_PER_ROW < way.expected) return then();
    // From where the list was noted to begin (seek.ts), a walk meets its first match at once: another walk.
    const walkKey = `${orderedListKey(resource, caller, page, filters)}|${seeking ? 'from its start' : 'from the top'}`;
    if (this.shortWalks.peek(ANY_VERSION, walkKey)) return then();
    for (let walk = way.first.walk; ; walk *= WALK_GROWTH) {
      const rows = await this.run(resource, caller, { ...page, offset, ...way.first, walk }, version, filters, seeking);
      // A walk cut short (the matches lie further along the order than their number promised)
      // is taken again longer, then the next way: the page holds exactly this many records.
      if (rows.length >= Math.min(page.limit, total - page.offset)) return rows;
      if (walk * WALK_GROWTH >= nextCost) break;
    }
    this.shortWalks.put(ANY_VERSION, walkKey, true);
    return then();
  }

  private async run(resource: Resource, caller: Caller, request: PageRequest, version: number, filters?: FilterTree, seeking?: { seek: Seek; offset: number } | null, among?: IdSet): Promise<Columns[]> {
    const key = JSON.stringify([resource.name, visibilityKey(caller), filterKey(filters), request, seeking?.seek ?? null]);
    const query = await this.statements.get(version, key, async () => {
      // Its text and values only: the tree it was compiled from is most of its weight, and thousands are kept.
      const { sql, parameters } = (await pageQuery(this.engine, resource, caller, request, filters, seeking?.seek)).compile();
      return CompiledQuery.raw(sql, [...parameters]);
    });
    if (request.among) {
      if (!among || !this.engine.runAmong) throw new Error('a page among kept matches needs the set and an engine that checks it');
      return this.engine.runAmong(query, among);
    }
    // A page that walks many rows (deep, filtered, or large) may take long: off the event loop.
    const long = request.offset + request.limit >= LONG_ROWS || filtersAnything(filters);
    return long ? this.engine.runLong(query) : this.engine.run(query);
  }

  caches(): CacheDescription[] {
    return [
      describeVersioned('page_statements', this.statements, 'a page\'s compiled SQL', 'resource, what the caller may see, filters, page, seek', LIST_TABLES),
      describeVersioned('short_walks', this.shortWalks, 'that a walk of the order\'s index came up short', 'resource, what the caller may see, filters, order, whether from where the list begins', 'never: a choice of way, not an answer (the page is exact whichever way reads it)'),
    ];
  }

  /**
   * How a filtered page is found, by what each way reads (the count is known, the planner knows
   * neither it nor, with parameters, how many rows a range holds):
   *   walk    the order's index, checking the filters row by row: about (offset + limit) × rows
   *           / matches rows (none where the list is in its pinned order, which no index holds);
   *   within  only the records of the projects that hold matches (counts kept per project say
   *           which), through the project's index: as many rows as those projects hold;
   *   sort    the filters' own index finds every match, sorted after: `matches` rows; or, where
   *           no index serves them (a two-letter search, a text's end), every row of the table,
   *           on SQLite the matches found first apart (`matchesFirst`: in the narrowest index
   *           that holds the filtered column, not by walking the whole order's index row by row),
   *           as they are where a text's few keys decide them (filter-sql.ts, `byKeys`), and on
   *           PostgreSQL so where they are few (FEW_APART); on
   *           SQLite, where an index finds them and the walk to the page's end is not too long,
   *           the page's ids found in the order's index alone, checked against them (`idsInOrder`).
   *   among   the order's index, each id checked against the filters' matches kept in
   *           memory: about (offset + limit) × rows / matches entries, once the matches are read
   *           (rows / MATCH_IDS_PER_ROW); taken instead of the next way wherever that is not
   *           `within`, since it reads every match too, and at once where they are kept already,
   *           or where reading them and this walk cost less than a walk of rows of a thousand or more.
   * The cheapest is chosen; a tie goes to the planner's own way, which is taken at once where
   * the filters are a range of the order's own field (onOrdersOwnIndex). There, and without
   * filters, a page that skips rows on an engine that reads the rows it skips has its ids found
   * first (list-sql.ts, `idsFirst`): the walk then reads the order's index alone. So does a page
   * read from a noted place (seek.ts), whose offset is the rows from there: at scale 100 on
   * PostgreSQL, comments by `comment` 200 rows past a mark read each skipped row from the table,
   * 18,000 blocks and 90 ms cold, 1,300–1,900 blocks a page under the mixed load; their ids
   * first, 900 blocks and 4 ms cold (such pages were 40 % of the statements' time in the mix).
   */
  private async way(resource: Resource, caller: Caller, page: PageRequest, total: number, filters?: FilterTree): Promise<Way> {
    if (!filters || !filtersAnything(filters) || onOrdersOwnIndex(resource, page, filters)) {
      const skips = this.engine.dialect.readsSkippedRows && page.offset >= page.limit && !(page.pinned && resource.pinnedOrder) && seenFromIndex(resource) ? { idsFirst: true } : {};
      return { first: skips, then: skips, nextCost: 0, among: null, expected: 0 };
    }
    const rows = await this.tableSize(resource);
    const onKeys = decidedOnKeys(this.engine, resource.table);
    const indexed = servedByIndex(filters, onKeys);
    const sort = indexed ? total : rows;
    const walk = page.pinned && resource.pinnedOrder ? Infinity : ((page.offset + page.limit) * rows) / Math.max(total, 1);
    const where = await this.whereMatches(resource, caller, filters, WITHIN_PROJECTS);
    const within = where ? where.rows : Infinity;
    // Matches found apart are each read again by id: worth it where they are few beside the table,
    // or where their keys decide them in another field's order (the planner reads each match's row
    // and sorts the rows: at scale 100, custom fields named like `ro` by `-help_text`, 1.1 s; their
    // ids apart, 0.47 s). In the order of the field decided on its keys, its index holds them in order.
    const fewBesideTable = !indexed && total * APART_SHARE <= rows;
    const keysOfAnotherField = anyOnKeys(filters, (term) => onKeys(term) && term.name !== page.order[0]?.field);
    const apart = (this.engine.dialect.matchesApart || total <= FEW_APART) && (fewBesideTable || keysOfAnotherField);
    // Matches an index finds, sorted from their rows, cost a row each: the page's ids are found in
    // the order's index instead, where the walk to the page's end is short enough (SQLite: the
    // planner left alone reads and sorts them; page 50 of comments prefixed `revis` by
    // `-created_at` at scale 100: 137 ms warm, 420 cold; its ids in order, 24–33 ms).
    // (In id order the table is the order's index: the matches' ids sort cheaply as they are.)
    const inOrder = this.engine.dialect.matchesApart && indexed && page.order[0]?.field !== 'id' && walk <= total * INDEX_ENTRIES_PER_ROW;
    const then = within < sort ? { within: where!.projects } : inOrder ? { idsInOrder: true } : apart ? { matchesFirst: true } : {};
    // Where the next way reads every match (not only some projects' records) and the walk to the
    // page's end in the order's index, its entries checked against kept matches, costs less: what
    // reading the matches for the set costs, in rows walked.
    const among = this.kept.available && !(page.pinned && resource.pinnedOrder) && !('within' in then) && walk / INDEX_ENTRIES_PER_ROW < sort ? sort / MATCH_IDS_PER_ROW : null;
    if (walk >= Math.min(sort, within)) return { first: then, then, nextCost: 0, among, expected: walk };
    // The walk may meet matches later than their share says (a text that goes with an order):
    // it stops at a few times the rows it should meet, and the page is read the next way.
    const rowsWalked = Math.max(WALK_MIN, Math.ceil(walk * WALK_SLACK));
    // Rows it reads cost more than the ids of a deep page found in the order's index: read so at once.
    const idsCost = (total + walk) / INDEX_ENTRIES_PER_ROW + page.offset + page.limit;
    if ('idsInOrder' in then && idsCost < rowsWalked) return { first: then, then, nextCost: 0, among, expected: walk };
    // What the next way reads, in rows walked: a walk taken again longer stops short of it (or of the set's read, `among`).
    const nextCost = 'idsInOrder' in then ? idsCost : Math.min(sort, within);
    return { first: { walk: rowsWalked }, then, nextCost, among, expected: walk };
  }
}
