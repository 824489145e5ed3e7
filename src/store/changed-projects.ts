/**
 * What the change log (data-version.ts, `logChange`) says of a stretch of versions, asked of the
 * database once. After a write, each cache entry of the written table that is brought up to date
 * (counts per project, kept matches, marks carried: project-counts.ts, pages/kept-matches.ts,
 * pages/seek.ts) asks which projects changed since its version, many about the same stretch:
 * under the mix with 5 % writes on PostgreSQL (one worker, scale 1) 1,093 of the 10,700
 * statements run in 8 s were these; asked once per stretch, 723 of 9,512 (each entry asks from
 * its own version). The answer for a stretch never changes: a version is seen only once every
 * change up to it is committed (a change takes its version first and holds it until it commits).
 */
import type { CacheDescription } from './caches.ts';
import { LOG_VERSIONS } from './data-version.ts';
import type { Engine } from './engine/index.ts';

/** Stretches answered, the oldest forgotten first: a write makes one per table and version of an entry behind. */
const KEPT = 1000;
/** An answer naming more projects is given but not kept (a long stretch of writes): at most this many ids in one. */
const KEPT_PROJECTS = 256;

/** What the log names (null where it does not say: a change of the whole table, or a stretch older than it keeps). */
async function projectsChanged(engine: Engine, table: string, from: number, to: number): Promise<Set<number> | null> {
  if (to - from > LOG_VERSIONS / 2) return null;
  const rows = await engine.run(engine.db.selectFrom('change_log').select('project').where('tbl', '=', table).where('version', '>', from).where('version', '<=', to).compile());
  const projects = new Set<number>();
  for (const row of rows) {
    if (row.project === null || row.project === undefined) return null;
    projects.add(Number(row.project));
  }
  return projects;
}

export class ChangedProjects {
  /** Each stretch's answer, and the projects it names once read (0 before). */
  private readonly answers = new Map<string, { projects: Promise<ReadonlySet<number> | null>; weight: number }>();
  private readonly engine: Engine;
  private hits = 0;
  private misses = 0;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  /** The projects whose records of `table` changed after version `from` up to `to`, or null where the log does not say. */
  between(table: string, from: number, to: number): Promise<ReadonlySet<number> | null> {
    const key = `${table} ${from} ${to}`;
    const kept = this.answers.get(key);
    if (kept) {
      this.hits += 1;
      return kept.projects;
    }
    this.misses += 1;
    const entry = { projects: projectsChanged(this.engine, table, from, to), weight: 0 };
    this.answers.set(key, entry);
    // A failed read is not an answer, nor is a long one kept: the next to ask reads again.
    entry.projects.then((projects) => {
      if (this.answers.get(key) !== entry) return;
      if ((projects?.size ?? 0) > KEPT_PROJECTS) this.answers.delete(key);
      else entry.weight = projects?.size ?? 0;
    }, () => this.answers.get(key) === entry && this.answers.delete(key));
    if (this.answers.size > KEPT) this.answers.delete(this.answers.keys().next().value as string);
    return entry.projects;
  }

  /** Projects named by the answers kept. */
  private get weight(): number {
    let weight = 0;
    for (const entry of this.answers.values()) weight += entry.weight;
    return weight;
  }

  /** Its cache, for the registry (caches.ts). */
  caches(): CacheDescription[] {
    return [{
      name: 'changed_projects', holds: 'the projects the change log names for a table between two versions', key: 'table, the two versions', bound: `${KEPT.toLocaleString('en')} stretches of at most ${KEPT_PROJECTS} projects each (longer ones answered, not kept)`,
      stale: 'never (what changed between two versions stays so)', figures: () => ({ entries: this.answers.size, hits: this.hits, misses: this.misses, weight: this.weight }),
    }];
  }
}
