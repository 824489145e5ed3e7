/**
 * A deep page found in memory. Read in SQL, a deep page walks every row before it, each one's
 * project probed for visibility. Instead it is a slice of the list's ids in its order, kept per
 * version of the tables it reads and made from two parts that many lists share: the table's ids
 * in that order (one index scan per version of the table), kept where they are in the list: the
 * ids the caller sees and the filters match (a set per list whatever its order). Its records are
 * then read by id.
 *
 * Chosen for pages past the first LONG_ROWS rows of a list whose table holds at most ORDERED_MAX
 * rows, which holds at least 1/SPARSE of its table (a sparser list is cheaper to sort), and whose
 * tables have settled (being written to, they would change again before what was built paid
 * off). The orders kept hold at most ORDERED_IDS ids in all (4 bytes each), the lists as many,
 * the sets at most MATCHES_BYTES.
 */
import type { FilterTree } from '../../query/filters.ts';
import type { Caller, Resource } from '../../resources/define.ts';
import type { CacheDescription } from '../caches.ts';
import { stamp, VersionedCache } from '../data-version.ts';
import type { Engine } from '../engine/index.ts';
import { IdSet } from '../idset.ts';
import { matchSetQuery, orderQuery, type PageRequest } from '../list-sql.ts';
import type { Settling } from '../settling.ts';
import { describeVersioned, LIST_TABLES, listKey } from './shared.ts';

const ORDERED_MAX = 200_000;
const ORDERED_IDS = 4_000_000;
const MATCHES_BYTES = 32 * 1024 * 1024;
const SPARSE = 16;

export class MemoryPages {
  /** Tables' ids in the orders deep pages asked for, per version of the table. */
  readonly orders = new VersionedCache<Int32Array>({ maxWeight: ORDERED_IDS, weigh: (ids) => ids.length });
  /** The ids in lists read deep, per list as a caller sees it. */
  readonly matches = new VersionedCache<IdSet>({ maxWeight: MATCHES_BYTES, weigh: (ids) => ids.bytes });
  /** The ids of lists read deep in their order, per list as a caller sees it and order. */
  readonly lists = new VersionedCache<Int32Array>({ maxWeight: ORDERED_IDS, weigh: (ids) => ids.length });
  private readonly engine: Engine;
  private readonly settling: Settling;
  /** How many records the table holds (an administrator's unfiltered count). */
  private readonly tableSize: (resource: Resource) => Promise<number>;

  constructor(engine: Engine, settling: Settling, tableSize: (resource: Resource) => Promise<number>) {
    this.engine = engine;
    this.settling = settling;
    this.tableSize = tableSize;
  }

  /** The count of a list already held as a set of its ids, if it is. */
  async heldCount(version: number, key: string): Promise<number | undefined> {
    const matched = this.matches.peek(version, key);
    return matched ? (await matched).size : undefined;
  }

  /** The ids of the page, or null where it is not found in memory. */
  async find(resource: Resource, caller: Caller, page: PageRequest, total: number, version: number, filters?: FilterTree): Promise<number[] | null> {
    const key = listKey(resource, caller, filters);
    const ordered = `${key}|${JSON.stringify([page.order, page.pinned])}`;
    let list = this.lists.peek(version, ordered);
    if (!list) {
      if (!this.settling.settled(resource.name, version)) return null;
      const order = await this.tableOrder(resource, page, total);
      if (!order) return null;
      list = this.lists.get(version, ordered, async () => {
        const matches = await this.matches.get(version, key, async () => IdSet.of(await this.engine.readIds((await matchSetQuery(this.engine, resource, caller, filters)).compile())));
        return order.filter((id) => matches.has(id));
      });
    }
    return Array.from((await list).subarray(page.offset, page.offset + page.limit));
  }

  caches(): CacheDescription[] {
    return [
      describeVersioned('table_orders', this.orders, 'a table\'s ids in one order', 'resource, order', 'a write to the table', 'ids'),
      describeVersioned('list_matches', this.matches, 'the ids a list holds (its count too)', 'resource, what the caller may see, filters', LIST_TABLES, 'bytes'),
      describeVersioned('list_orders', this.lists, 'a list\'s ids in its order (deep pages)', 'resource, what the caller may see, filters, order', LIST_TABLES, 'ids'),
    ];
  }

  /** Every id of the resource's table in the page's order, unless the table is too long or the list too sparse. */
  private async tableOrder(resource: Resource, page: PageRequest, total: number): Promise<Int32Array | null> {
    const version = stamp(this.engine.versionNow() ?? (await this.engine.version()), [resource.table]);
    const key = JSON.stringify([resource.name, page.order, page.pinned]);
    const kept = this.orders.peek(version, key);
    if (kept) return kept;
    const size = await this.tableSize(resource);
    if (size > ORDERED_MAX || total * SPARSE < size) return null;
    return this.orders.get(version, key, async () => this.engine.readIds(orderQuery(this.engine, resource, page).compile()));
  }
}
