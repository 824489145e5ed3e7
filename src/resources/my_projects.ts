import { Type } from '@sinclair/typebox';
import { bool, constant, date, derived, desc, id, Nullable, text, resource } from './define.js';

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
    locations: derived(Type.Array(Type.Object({ country: Type.String(), iso_code: Type.String() })), (row) => row.$locations ?? []),
    status: derived(Type.String(), (row) => row.publishing_status),
    is_public: bool(),
    sectors: constant(Type.Array(Type.Unknown()), []),
    parent: derived(Nullable(Type.Object({ id: Type.Integer(), title: Type.String(), is_lead: Type.Boolean() })), (row) => row.$parent ?? null),
    editable: derived(Type.Boolean(), (row) => row.$editable ?? false),
    recipient_countries: constant(Type.Array(Type.Unknown()), []),
    restricted: constant(Type.Boolean(), false),
    roles: constant(Type.Array(Type.Unknown()), []),
    use_project_roles: constant(Type.Boolean(), false),
    is_program: derived(Type.Boolean(), (row) => row.$isProgram ?? false),
    primary_organisation: derived(Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), long_name: Type.String(), logo: Nullable(Type.String()) })), (row) => row.$primaryOrganisation ?? null),
    children_count: derived(Type.Integer(), (row) => row.$childrenCount ?? 0),
  },
});
export default myProjects;
