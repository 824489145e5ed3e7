/**
 * The project kept on records several foreign keys away from it (store/columns.ts, PROJECT_COLUMN),
 * checked against each path's joins written out by hand here: not built by visibility.ts, whose
 * lookup is what is being checked.
 */
import { CompiledQuery } from 'kysely';
import type { Engine } from '../../src/store/engine/index.ts';

const PATHS: Record<string, { joins: string; project: string }> = {
  administrative_location: { joins: 'left join project_location l on l.id = t.location', project: 'l.project' },
  disaggregation_target: {
    joins: 'left join indicator_period p on p.id = t.period left join indicator i on i.id = p.indicator left join result r on r.id = i.result',
    project: 'r.project',
  },
  indicator_period_data_comment: {
    joins: 'left join indicator_period_data d on d.id = t.data left join indicator_period p on p.id = d.period left join indicator i on i.id = p.indicator left join result r on r.id = i.result',
    project: 'r.project',
  },
};

export const CARRYING_TABLES = Object.keys(PATHS);

/** Per table: its records, and those whose kept project is not the one its path leads to. */
export async function carriedProjects(engine: Engine): Promise<Record<string, { records: number; wrong: number }>> {
  const found: Record<string, { records: number; wrong: number }> = {};
  for (const [table, { joins, project }] of Object.entries(PATHS)) {
    const [row] = await engine.run(CompiledQuery.raw(`select count(*) as records, sum(case when t._project is distinct from ${project} then 1 else 0 end) as wrong from ${table} t ${joins}`));
    found[table] = { records: Number(row.records), wrong: Number(row.wrong ?? 0) };
  }
  return found;
}
