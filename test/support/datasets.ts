/** Datasets built in code for tests whose point is quantity (paging, ordering) rather than content. */
import type { DatasetSource } from '../../src/store/import.ts';

export interface PagingItem {
  id: number;
  project: number;
  type: string;
  amount: number | null;
  other_extra: string | null;
}

const EXTRAS = ['Fuel', 'fuel', 'Éclair', 'eclair', 'apple', null, '', 'Zebra'];

/**
 * 1,050 visible budget items (project 1) plus 50 of a private project (2), ids interleaved, with
 * many ties in `type`, `amount` and `other_extra` so that ordering and paging have work to do.
 */
export function pagingItems(): PagingItem[] {
  const items: PagingItem[] = [];
  for (let id = 1; id <= 1100; id += 1) {
    items.push({
      id,
      project: id % 22 === 0 ? 2 : 1,
      type: ['1', '2', ''][id % 3],
      amount: id % 11 === 0 ? null : (id % 7) * 10 + (id % 2 ? 0.5 : 0),
      other_extra: EXTRAS[id % EXTRAS.length],
    });
  }
  return items;
}

export function pagingDataset(): DatasetSource[] {
  const project = (id: number, isPublic: boolean) => ({ id, title: `Project ${id}`, is_public: isPublic, publishing_status: 'published' });
  return [
    { file: 'project', label: 'project', records: [project(1, true), project(2, false)] },
    { file: 'budget_item', label: 'budget_item', records: pagingItems() },
  ];
}

/**
 * Records whose relations lead where callers may not look: a public project (1) inside a
 * private program (2) that only organisation 2 takes part in, a public project (3) of its own,
 * and comments by two users whose e-mail addresses nobody but administrators may probe.
 */
export function privacyDataset(): DatasetSource[] {
  const records = (file: string, rows: object[]): DatasetSource => ({ file, label: file, records: rows });
  const project = (id: number, title: string, isPublic: boolean, parent: number | null) => ({ id, title, is_public: isPublic, publishing_status: 'published', parent });
  const item = (id: number, projectId: number) => ({ id, project: projectId, amount: id * 10 });
  return [
    records('organisation', [{ id: 1, name: 'Open Org', long_name: 'Open Organisation' }, { id: 2, name: 'Partner Org', long_name: 'Partner Organisation' }]),
    records('project', [project(2, 'Secret program', false, null), project(1, 'Open well', true, 2), project(3, 'Other well', true, null)]),
    records('user', [
      { id: 1, email: 'admin@example.org', first_name: 'Ad', last_name: 'Min', is_admin: true },
      { id: 2, email: 'ann@secret.org', first_name: 'Ann', last_name: 'Author' },
      { id: 3, email: 'bob@partner.org', first_name: 'Bob', last_name: 'Partner' },
    ]),
    records('employment', [{ id: 1, user: 3, organisation: 2, group: 'Users', is_approved: true }]),
    records('partnership', [{ id: 1, project: 2, organisation: 2, iati_organisation_role: 101 }]),
    records('project_location', [{ id: 1, project: 1, latitude: 1.5, longitude: 2.5, country: 'KE', name: 'Well' }]),
    records('result', [{ id: 1, project: 1, title: 'Water', type: '1' }]),
    records('indicator', [{ id: 1, result: 1, title: 'Wells dug' }]),
    records('indicator_period', [{ id: 1, indicator: 1, period_start: '2024-01-01', period_end: '2024-12-31' }]),
    records('indicator_period_data', [{ id: 1, period: 1, user: 2, value: 3, status: 'A' }]),
    records('indicator_period_data_comment', [
      { id: 1, data: 1, user: 2, comment: 'Dug three.', created_at: '2024-05-01T10:00:00Z', last_modified_at: '2024-05-01T10:00:00Z' },
      { id: 2, data: 1, user: 3, comment: 'Checked.', created_at: '2024-05-02T10:00:00Z', last_modified_at: '2024-05-02T10:00:00Z' },
    ]),
    records('budget_item', [item(1, 1), item(2, 1), item(3, 3), item(4, 2)]),
    records('administrative_location', [{ id: 1, location: 1, vocabulary: 'A4', code: 'KE', level: 1 }]),
    records('link', Array.from({ length: 5 }, (_, index) => ({ id: index + 1, project: 3, url: `https://example.org/${index + 1}`, caption: `Link ${index + 1}` }))),
  ];
}

/** The projects of the authorisation matrix (test/auth-matrix.md), by the name its rows give them. */
export const MATRIX_PROJECTS = { 'public-partner': 1, 'private-partner': 2, 'unpublished-partner': 3, 'private-other': 4, 'public-other': 5 } as const;

/** The roles of the matrix's columns, each a user of its own: an employment at organisation 1 (the partner) where it has a role. */
export const MATRIX_USERS: { role: string; email: string; group?: string; admin?: boolean }[] = [
  { role: 'outsider', email: 'outsider@example.org' },
  ...['Admins', 'M&E Managers', 'Project Editors', 'User Managers', 'Enumerators', 'Users'].map((group, index) => ({ role: group, email: `role${index}@example.org`, group })),
  { role: 'administrator', email: 'admin@example.org', admin: true },
];

/**
 * One record of every resource in each project of MATRIX_PROJECTS (record id = project id):
 * organisation 1 takes part in projects 1-3, organisation 2 in 4 and 5; reports 100-102 belong
 * to nobody, to organisation 1 and to organisation 2.
 */
export function matrixDataset(): DatasetSource[] {
  const records = (file: string, rows: object[]): DatasetSource => ({ file, label: file, records: rows });
  const projects = Object.entries(MATRIX_PROJECTS).map(([title, id]) => ({ id, title, is_public: title.startsWith('public') || title.startsWith('unpublished'), publishing_status: title.startsWith('unpublished') ? 'unpublished' : 'published' }));
  const each = (make: (id: number) => object) => projects.map(({ id }) => ({ id, ...make(id) }));
  return [
    records('organisation', [{ id: 1, name: 'Partner', long_name: 'Partner Organisation' }, { id: 2, name: 'Other', long_name: 'Other Organisation' }]),
    records('project', projects),
    records('user', MATRIX_USERS.map((user, index) => ({ id: index + 1, email: user.email, first_name: user.role, last_name: 'Matrix', is_admin: user.admin ?? false }))),
    records('employment', MATRIX_USERS.flatMap((user, index) => (user.group ? [{ id: index + 1, user: index + 1, organisation: 1, group: user.group, is_approved: true }] : []))),
    records('partnership', each((id) => ({ project: id, organisation: id <= 3 ? 1 : 2, iati_organisation_role: 101 }))),
    records('project_location', each((id) => ({ project: id, latitude: 1, longitude: 2, country: 'KE', name: `Place ${id}` }))),
    records('result', each((id) => ({ project: id, title: `Result ${id}`, type: '1' }))),
    records('indicator', each((id) => ({ result: id, title: `Indicator ${id}` }))),
    records('indicator_period', each((id) => ({ indicator: id, period_start: '2024-01-01', period_end: '2024-12-31', target_value: '10' }))),
    records('indicator_period_data', each((id) => ({ period: id, user: MATRIX_USERS.length, value: 1, status: 'A' }))),
    records('indicator_dimension_name', each((id) => ({ project: id, name: `Gender ${id}` }))),
    records('indicator_dimension_value', each((id) => ({ name: id, value: 'Women' }))),
    records('keyword', [{ id: 1, label: 'Water' }]),
    records('reports', [100, 101, 102].map((id, index) => ({ id, name: `report-${id}`, title: `Report ${id}`, url: '/py-reports/project/{project}/x/?format={format}', formats: ['pdf'], organisations: index === 0 ? [] : [index] }))),
    records('budget_item', each((id) => ({ project: id, amount: id * 100, currency: 'EUR' }))),
    records('transaction', each((id) => ({ project: id, reference: `T${id}`, value: id }))),
    records('indicator_period_data_comment', each((id) => ({ data: id, user: MATRIX_USERS.length, comment: `Comment ${id}`, created_at: '2024-05-01T10:00:00Z', last_modified_at: '2024-05-01T10:00:00Z' }))),
    records('recipient_region', each((id) => ({ project: id, region: '89', percentage: 50 }))),
    records('project_custom_field', each((id) => ({ project: id, name: `Field ${id}`, section: 1, order: 0, value: 'x' }))),
    records('administrative_location', each((id) => ({ location: id, vocabulary: 'A4', code: 'KE' }))),
    records('link', each((id) => ({ project: id, url: `https://example.org/${id}`, caption: `Link ${id}` }))),
    records('disaggregation_target', each((id) => ({ period: id, dimension_value: id, value: 3 }))),
    records('humanitarian_scope', each((id) => ({ project: id, code: `H${id}`, type: '1', vocabulary: '1-2', text: 'Floods' }))),
  ];
}
