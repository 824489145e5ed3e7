import { Type } from '@sinclair/typebox';
import { codes } from '../codelists/index.ts';
import { pythonFloat } from '../text/python.ts';
import {
  asc, many, bool, code, constant, derived, fk, id, int, Nullable, text, timestamp, url,
  EDIT_ROLES, resource, storedFields, type Related, type RenderContext, type Row,
} from './define.ts';
import organisationLocation from './organisation_location.ts';

const LOCATION = Type.Object(Object.fromEntries(storedFields(organisationLocation).map(([name, field]) => [name, field.schema])));

/** The primary location, or the one with the lowest id when none is set (resources.md). */
function primaryLocation(row: Row, related: Related): Row | null {
  const locations: Row[] = related.locations ?? [];
  return locations.find((location) => location.id === row.primary_location) ?? locations[0] ?? null;
}

const coordinate = (axis: 'latitude' | 'longitude') => (row: Row, ctx: RenderContext, related: Related): string | null => {
  const value = primaryLocation(row, related)?.[axis];
  return value === null || value === undefined ? null : pythonFloat(value);
};

const EMPTY_LIST = Type.Array(Type.Unknown());

const organisation = resource({
  name: 'organisation',
  title: 'Organisation',
  description: 'API endpoint that allows organisations to be viewed or edited.',
  defaultOrder: [asc('name')],
  visibility: { kind: 'public' },
  writers: { kind: 'organisation' },
  serviceFields: { created: 'created_at', modified: 'last_modified_at' },
  checks: [
    (record) =>
      record.primary_location !== null && !(record.locations ?? []).some((location: Row) => location?.id === record.primary_location)
        ? { field: 'primary_location', message: `${record.primary_location} is not one of the organisation's locations` }
        : null,
  ],
  nested: [{ field: 'locations', entity: organisationLocation, parent: 'location_target' }],
  fields: {
    id: id(),
    name: text({ required: true, blank: false, maxLength: 40, unique: 'ci', index: 'search' }),
    long_name: text({ required: true, blank: false, maxLength: 100, unique: 'ci', index: 'search' }),
    language: text({ choices: ['en', 'es', 'fr'], default: 'en', blank: false }),
    organisation_type: text({ null: true, choices: ['N', 'G', 'C', 'K'] }),
    new_organisation_type: int({ default: 22, choices: codes('organisation_type').map(Number) }),
    currency: code('currency', { default: 'EUR', blank: false }),
    iati_org_id: text({ null: true, maxLength: 75, unique: true, verbose: 'IATI organisation ID' }),
    iati_prefixes: text({ null: true, maxLength: 2000, orderable: false, verbose: 'IATI identifier prefixes' }),
    url: url(),
    facebook: url(),
    twitter: url(),
    linkedin: url(),
    phone: text({ maxLength: 20 }),
    mobile: text({ maxLength: 20 }),
    fax: text({ maxLength: 20 }),
    contact_person: text({ maxLength: 30 }),
    // A plain CharField on RSR: not checked as an address.
    contact_email: text({ maxLength: 50 }),
    description: text(),
    notes: text(),
    logo: url({ null: true, maxLength: 255 }),
    latitude: derived(Nullable(Type.String()), coordinate('latitude')),
    longitude: derived(Nullable(Type.String()), coordinate('longitude')),
    city: derived(Nullable(Type.String()), (row, ctx, related) => primaryLocation(row, related)?.city ?? null),
    created_at: timestamp({ null: true }),
    last_modified_at: timestamp({ null: true }),
    current_user_permissions: derived(
      Type.Object({ can_create_iati_export: Type.Boolean(), can_edit_iati_export: Type.Boolean() }),
      (row, { caller }) => {
        const groups = caller.organisations.get(row.id) ?? new Set<string>();
        return {
          can_create_iati_export: caller.isAdmin || [...groups].some((group) => EDIT_ROLES.has(group)),
          can_edit_iati_export: caller.isAdmin || groups.has('Admins'),
        };
      },
    ),
    can_create_projects: bool({ default: false }),
    enforce_program_projects: bool({ default: false }),
    use_project_roles: bool({ default: false }),
    public_iati_file: bool({ default: true }),
    enforce_2fa: bool({ default: false }),
    can_become_reporting: bool({ default: false }),
    primary_location: { ...int({ null: true }), render: (row, ctx, related) => primaryLocation(row, related)?.id ?? null },
    // Seldom set and never a list's order: no index (migration 13 adds the columns only).
    content_owner: fk('organisation', { null: true, index: 'none', orderable: false }),
    original: fk('organisation', { null: true, index: 'none', orderable: false }),
    // Foreign keys to RSR tables this service does not keep (password policies, organisation code
    // lists): stored as RSR stores them, and no id exists but null.
    password_policy: int({ null: true, choices: [], pkChoices: true, orderable: false }),
    codelist: int({ null: true, choices: [], pkChoices: true, orderable: false }),
    internal_org_ids: constant(EMPTY_LIST, []),
    total_budgets: constant(EMPTY_LIST, []),
    recipient_org_budgets: constant(EMPTY_LIST, []),
    region_budgets: constant(EMPTY_LIST, []),
    country_budgets: constant(EMPTY_LIST, []),
    total_expenditures: constant(EMPTY_LIST, []),
    documents: constant(EMPTY_LIST, []),
    locations: derived(Type.Array(LOCATION), (row, ctx, related) => related.locations),
  },
  related: { locations: many('organisation_location', 'location_target') },
});
export default organisation;
