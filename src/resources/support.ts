/**
 * Entities that API records point to but that have no list of their own (dataset.md, "Entities
 * the records point to"). They are imported, exported, joined for visibility and read by
 * derived fields.
 */
import { bool, code, date, decimal, email, fk, id, int, ROLES, text, timestamp, type Entity } from './define.ts';

export const project: Entity = {
  table: 'project',
  projectPath: [],
  fields: {
    id: id(),
    title: text({ maxLength: 200 }),
    subtitle: text({ maxLength: 200 }),
    is_public: bool({ default: true }),
    publishing_status: text({ choices: ['published', 'unpublished'], default: 'unpublished', blank: false }),
    currency: code('currency', { default: 'EUR', blank: false }),
    date_start_planned: date({ null: true }),
    date_end_planned: date({ null: true }),
    date_start_actual: date({ null: true }),
    date_end_actual: date({ null: true }),
    parent: fk('project', { null: true }),
  },
};

export const program: Entity = {
  table: 'program',
  // The id is the program's root (lead) project, and a program is seen where that project is (spec/reports.md).
  projectPath: ['id'],
  fields: { id: fk('project', { required: true }), title: text({ maxLength: 200 }) },
};

/** http.md, Filtering: of a user, anyone may filter by id and names, administrators by e-mail too. */
export const user: Entity = {
  table: 'user',
  fields: {
    id: id(),
    email: email({ required: true, blank: false, maxLength: 254, unique: 'ci', filter: 'admins' }),
    first_name: text({ maxLength: 150 }),
    last_name: text({ maxLength: 150 }),
    is_active: bool({ default: true, filter: 'no-one' }),
    is_admin: bool({ default: false, filter: 'no-one' }),
    is_superuser: bool({ default: false, filter: 'no-one' }),
  },
};

/** Who works where, with which role: read by the service to authorise, never filtered by callers. */
export const employment: Entity = {
  table: 'employment',
  fields: {
    id: id({ filter: 'no-one' }),
    user: fk('user', { required: true, filter: 'no-one' }),
    organisation: fk('organisation', { required: true, filter: 'no-one' }),
    group: text({ required: true, choices: ROLES, blank: false, filter: 'no-one' }),
    is_approved: bool({ default: false, filter: 'no-one' }),
  },
};

export const partnership: Entity = {
  table: 'partnership',
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    organisation: fk('organisation', { required: true }),
    iati_organisation_role: int({ required: true, choices: [1, 2, 3, 4, 101] }),
  },
};

export const projectLocation: Entity = {
  table: 'project_location',
  projectPath: ['project'],
  // RSR's ProjectLocation calls its project `location_target` (clients filter by it).
  filterAliases: { location_target: 'project' },
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    latitude: decimal(22, 16, { null: true }),
    longitude: decimal(22, 16, { null: true }),
    country: code('country', { null: true, blank: false }),
    name: text(),
  },
};

export const result: Entity = {
  table: 'result',
  projectPath: ['project'],
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    title: text({ maxLength: 500 }),
    description: text(),
    type: text({ choices: ['1', '2', '3', '9'] }),
    order: int({ null: true }),
  },
};

export const indicator: Entity = {
  table: 'indicator',
  projectPath: ['result', 'project'],
  fields: {
    id: id(),
    result: fk('result', { required: true }),
    title: text({ maxLength: 500 }),
    description: text(),
    type: int({ choices: [1, 2], default: 1 }),
    measure: text({ choices: ['1', '2'] }),
    ascending: bool({ null: true }),
    baseline_year: int({ null: true }),
    baseline_value: decimal(20, 2, { null: true }),
    target_value: decimal(20, 2, { null: true }),
    order: int({ null: true }),
    // The indicator of the parent project this one contributes to (RSR's Indicator.parent_indicator);
    // read only by the program reports, which have the whole framework at hand: no index.
    parent_indicator: fk('indicator', { null: true, index: 'none' }),
  },
};

export const indicatorPeriod: Entity = {
  table: 'indicator_period',
  projectPath: ['indicator', 'result', 'project'],
  fields: {
    id: id(),
    indicator: fk('indicator', { required: true }),
    period_start: date({ null: true }),
    period_end: date({ null: true }),
    target_value: text({ maxLength: 100 }),
    actual_value: text({ maxLength: 100 }),
    target_comment: text(),
    actual_comment: text(),
    // The period of the parent indicator this one contributes to (RSR's IndicatorPeriod.parent_period).
    parent_period: fk('indicator_period', { null: true, index: 'none' }),
  },
};

export const indicatorPeriodData: Entity = {
  table: 'indicator_period_data',
  projectPath: ['period', 'indicator', 'result', 'project'],
  fields: {
    id: id(),
    period: fk('indicator_period', { required: true }),
    user: fk('user', { null: true }),
    value: decimal(20, 2, { null: true }),
    text: text(),
    status: text({ choices: ['D', 'P', 'R', 'A'], default: 'D', blank: false }),
    created_at: timestamp({ null: true }),
  },
};

export const indicatorDimensionName: Entity = {
  table: 'indicator_dimension_name',
  projectPath: ['project'],
  fields: { id: id(), project: fk('project', { required: true }), name: text({ maxLength: 100 }) },
};

export const indicatorDimensionValue: Entity = {
  table: 'indicator_dimension_value',
  projectPath: ['name', 'project'],
  fields: { id: id(), name: fk('indicator_dimension_name', { required: true }), value: text({ maxLength: 100 }) },
};

export const projectUpdate: Entity = {
  table: 'project_update',
  projectPath: ['project'],
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    user: fk('user', { null: true }),
    title: text({ maxLength: 80 }),
    text: text(),
    event_date: date({ null: true }),
    created_at: timestamp({ null: true }),
  },
};

/** API keys (http.md, Authentication): only a hash is stored; the key is shown once, at creation. */
export const apiToken: Entity = {
  table: 'api_token',
  fields: {
    id: id({ filter: 'no-one' }),
    user: fk('user', { required: true, filter: 'no-one' }),
    key_hash: text({ required: true, blank: false, maxLength: 64, unique: true, orderable: false, filter: 'no-one' }),
    created_at: timestamp({ required: true, filter: 'no-one' }),
    // Noted by authentication at most every few minutes (users.ts, callerForKey).
    last_used_at: timestamp({ null: true, filter: 'no-one' }),
  },
};
