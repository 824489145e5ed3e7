import { Type } from '@sinclair/typebox';
import { codeName } from '../codelists/index.ts';
import {
  bool, constant, date, derived, desc, id, Nullable, resource, text,
  type Lookup, type Related, type Row,
} from './define.ts';

const REPORTING = 101;

const ORGANISATION = Type.Object({ id: Type.Integer(), name: Type.String(), long_name: Type.String(), logo: Nullable(Type.String()) });

function groupBy(rows: Row[], key: string): Map<unknown, Row[]> {
  const groups = new Map<unknown, Row[]>();
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    const group = groups.get(row[key]);
    if (group) group.push(row);
    else groups.set(row[key], [row]);
  }
  return groups;
}

/** Everything resources.md lists for my_projects, for one page of projects, in a few queries. */
async function expand(rows: Row[], related: Related[], lookup: Lookup): Promise<void> {
  const ids = rows.map((row) => row.id);
  const parentIds = rows.map((row) => row.parent).filter((parent) => parent !== null);
  const [locations, partnerships, children, parents, programs, visibleParents, editable] = await Promise.all([
    lookup.byColumn('project_location', 'project', ids),
    lookup.byColumn('partnership', 'project', ids),
    lookup.byColumn('project', 'parent', ids),
    lookup.byColumn('project', 'id', parentIds),
    lookup.byColumn('program', 'id', [...ids, ...parentIds]),
    lookup.visible('project', parentIds),
    lookup.editable(ids),
  ]);
  const partnersOf = groupBy(partnerships, 'project');
  const organisations = new Map((await lookup.byColumn('organisation', 'id', partnerships.map((row) => row.organisation))).map((row) => [row.id, row]));
  const locationsOf = groupBy(locations, 'project');
  const programIds = new Set(programs.map((program) => program.id));
  const parentsById = new Map(parents.map((parent) => [parent.id, parent]));

  for (const [index, row] of rows.entries()) {
    const each = related[index];
    each.locations = (locationsOf.get(row.id) ?? [])
      .filter((location) => location.country)
      .map((location) => ({ country: codeName('country', location.country), iso_code: location.country.toLowerCase() }));
    const parent = parentsById.get(row.parent);
    each.parent = parent && visibleParents.has(parent.id) ? { id: parent.id, title: parent.title, is_lead: programIds.has(parent.id) } : null;
    each.editable = editable.has(row.id);
    each.isProgram = programIds.has(row.id);
    const partners = partnersOf.get(row.id) ?? [];
    const primary = organisations.get((partners.find((partner) => partner.iati_organisation_role === REPORTING) ?? partners[0])?.organisation);
    each.primaryOrganisation = primary ? { id: primary.id, name: primary.name, long_name: primary.long_name, logo: primary.logo } : null;
    each.childrenCount = children.filter((child) => child.parent === row.id).length;
  }
}

/** The projects the caller can edit (resources.md). Read-only; anonymous callers get none. */
const myProjects = resource({
  name: 'my_projects',
  table: 'project',
  title: 'My Projects',
  description: 'Viewset providing listing of projects a user can edit.',
  defaultOrder: [desc('id')],
  visibility: { kind: 'own-projects' },
  readOnly: true,
  fields: {
    id: id(),
    title: text(),
    subtitle: text(),
    date_end_actual: date({ null: true }),
    date_end_planned: date({ null: true }),
    date_start_actual: date({ null: true }),
    date_start_planned: date({ null: true }),
    locations: derived(Type.Array(Type.Object({ country: Type.String(), iso_code: Type.String() })), (row, ctx, related) => related.locations),
    status: derived(Type.String(), (row) => row.publishing_status),
    is_public: bool(),
    sectors: constant(Type.Array(Type.Unknown()), []),
    parent: derived(Nullable(Type.Object({ id: Type.Integer(), title: Type.String(), is_lead: Type.Boolean() })), (row, ctx, related) => related.parent),
    editable: derived(Type.Boolean(), (row, ctx, related) => related.editable),
    recipient_countries: constant(Type.Array(Type.Unknown()), []),
    restricted: constant(Type.Boolean(), false),
    roles: constant(Type.Array(Type.Unknown()), []),
    use_project_roles: constant(Type.Boolean(), false),
    is_program: derived(Type.Boolean(), (row, ctx, related) => related.isProgram),
    primary_organisation: derived(Nullable(ORGANISATION), (row, ctx, related) => related.primaryOrganisation),
    children_count: derived(Type.Integer(), (row, ctx, related) => related.childrenCount),
  },
  expand,
  reads: ['project_location', 'partnership', 'project', 'program', 'organisation'],
});
export default myProjects;
