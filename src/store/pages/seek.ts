/**
 * A deep page in id order read in SQL from a noted position. Walking to it from the start would
 * probe every row before it for visibility; instead the ids at positions 0, SEEK_STEP,
 * 2·SEEK_STEP, … of the list are noted as pages that deep are asked for (once per version of the
 * list's tables), and a page starts from the nearest one before it: it walks fewer than SEEK_STEP
 * rows however deep it is. Chosen for lists in id order read past SEEK_STEP rows (and not found in
 * memory: in-memory.ts); report definitions, a short list, are read as they are.
 */
import type { FilterTree } from '../../query/filters.ts';
import type { Caller, Resource } from '../../resources/define.ts';
import type { CacheDescription } from '../caches.ts';
import { VersionedCache } from '../data-version.ts';
import type { Engine } from '../engine/index.ts';
import { markQuery, type PageRequest, type Seek } from '../list-sql.ts';
import { describeVersioned, LIST_TABLES, listKey } from './shared.ts';

const SEEK_STEP = 1000;

interface Marks {
  ids: number[];
  complete: boolean;
  /** Extensions run one after the other: concurrent deep pages note each position once. */
  extending: Promise<unknown>;
}

export class SeekMarks {
  /** Noted positions of lists in id order, per list as a caller sees it and direction. */
  readonly marks = new VersionedCache<Marks>();
  private readonly engine: Engine;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /** Where the page's SQL starts and how far past that its offset is; null to read it from the start. */
  async seekFor(resource: Resource, caller: Caller, page: PageRequest, version: number, filters?: FilterTree): Promise<{ seek: Seek; offset: number } | null> {
    const [term] = page.order;
    const inIdOrder = page.order.length === 1 && term.field === 'id' && !(page.pinned && resource.pinnedOrder);
    if (!inIdOrder || page.offset < SEEK_STEP || resource.visibility.kind === 'organisations') return null;
    const descending = term.descending;
    const marks = await this.marks.get(version, `${listKey(resource, caller, filters)}|${descending}`, async () => ({ ids: [], complete: false, extending: Promise.resolve() }));
    const wanted = Math.floor(page.offset / SEEK_STEP);
    const extension = marks.extending.then(async () => {
      while (!marks.complete && marks.ids.length <= wanted) {
        const query = await markQuery(this.engine, resource, caller, filters, descending, marks.ids.at(-1) ?? null, SEEK_STEP);
        const [row] = await this.engine.runLong(query.compile());
        if (row) marks.ids.push(Number(row.id));
        else marks.complete = true;
      }
    });
    marks.extending = extension.catch(() => undefined); // a failed query fails this request only
    await extension;
    const step = Math.min(wanted, marks.ids.length - 1);
    if (step < 1) return null;
    return { seek: { id: marks.ids[step], descending }, offset: page.offset - step * SEEK_STEP };
  }

  caches(): CacheDescription[] {
    return [describeVersioned('seek_marks', this.marks, `the ids at every ${SEEK_STEP.toLocaleString('en')}th place of a list in id order`, 'resource, what the caller may see, filters, direction', LIST_TABLES)];
  }
}
