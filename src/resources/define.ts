/**
 * The vocabulary in which every table and every API resource is declared, once. Routes, SQL,
 * validation, serialization and tests all read these declarations (see resources/index.ts).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { CodelistName } from '../codelists/index.ts';
import { EDIT_ROLES, type Caller } from './caller.ts';

export type ScalarType = 'int' | 'decimal' | 'text' | 'date' | 'timestamp' | 'bool' | 'json';

/** A record as read from the store: stored columns by field name, plus what `expand` attaches. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are shaped by declarations at run time
export type Row = Record<string, any>;

export { ANONYMOUS, EDIT_ROLES, organisationsWithRole, ROLES, SERVICE, type Caller } from './caller.ts';

export interface RenderContext {
  caller: Caller;
}

export interface StoredField {
  kind: 'stored';
  type: ScalarType;
  nullable: boolean;
  /** Table of the entity a foreign key points to. */
  references?: string;
  /** Longest allowed text, in characters (code points, as Django counts). */
  maxLength?: number;
  /** Decimal digits in all and after the point, as Django's DecimalField(max_digits, decimal_places). */
  digits?: [total: number, decimals: number];
  min?: number;
  max?: number;
  /** The only values allowed (besides null / "" where those are allowed). */
  choices?: readonly (string | number)[];
  codelist?: CodelistName;
  /** Legacy codes imports accept besides the code list's own (IATI 1.x transaction types); writes do not. */
  legacyCodes?: readonly string[];
  /** The choices are ids of a table RSR has and this service keeps as a list: refused as a foreign key is. */
  pkChoices?: boolean;
  /** Django's verbose_name where it is not the name with spaces (read by the unique message). */
  verbose?: string;
  /** Text may be the empty string. */
  blank: boolean;
  required: boolean;
  default?: unknown;
  /** Unique within the table; 'ci' ignores case. */
  unique?: true | 'ci';
  /** Text must be an http(s) URL (or blank). */
  url?: boolean;
  /** Text must look like an e-mail address (or blank). */
  email?: boolean;
  orderable: boolean;
  /**
   * Who may filter by this field, on the record itself or through a relation (http.md,
   * Filtering): anyone unless it says otherwise. The answer to a filter nobody may use is the
   * same 400 whatever the data, so that it tells nothing.
   */
  filter?: 'admins' | 'no-one';
  /**
   * Lists are often filtered by this field: the store keeps an index for it, so that a large list
   * answers without a full scan. (Every field a list may be ordered by is indexed for that
   * order anyway, which serves its filters too: store/indexes.ts.) 'none': a foreign key nothing
   * looks rows up by, so not worth an index (every other foreign key has one). 'search': text
   * clients search by a part of it (`icontains`, `istartswith`, `iendswith`): a trigram index of
   * its D7 key finds the few records a rare part is in without reading every record.
   */
  index?: 'filter' | 'none' | 'search';
  schema: TSchema;
  /** How the value is shown when that is not simply the stored value. */
  render?(row: Row, ctx: RenderContext, related: Related): unknown;
  /** Turns a written value into the stored one; returns an error message when it cannot. */
  parse?(value: unknown): { value: unknown } | { error: string };
}

/** Rows related to one record, by the names its resource declares them under (`related`, `expand`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- shaped by each resource's declaration
export type Related = Record<string, any>;

export interface DerivedField {
  kind: 'derived';
  schema: TSchema;
  compute(row: Row, ctx: RenderContext, related: Related): unknown;
}

/** How a resource reaches rows of other tables that its derived fields show (read a page at a time). */
export type Relation =
  /** The row the foreign key `via` points to, or null. */
  | { kind: 'one'; via: string; table: string }
  /** The rows of `table` whose `column` holds the record's id, in id order. */
  | { kind: 'many'; table: string; column: string };

export const one = (via: string, table: string): Relation => ({ kind: 'one', via, table });
export const many = (table: string, column: string): Relation => ({ kind: 'many', table, column });

export type Field = StoredField | DerivedField;

/** A rule over several fields of one record: the offending field and its message, or null. */
export type RecordCheck = (record: Row) => { field: string; message: string } | null;

export interface Entity {
  table: string;
  fields: Record<string, Field>;
  checks?: readonly RecordCheck[];
  /** Records of another table written inside this one's records (organisation.locations). */
  nested?: readonly NestedCollection[];
  /** Foreign keys leading from a record to the project it belongs to (for visibility). */
  projectPath?: readonly string[];
  /** Other names filters may give a field by, as the original's models name it (`location_target`). */
  filterAliases?: Readonly<Record<string, string>>;
}

export interface NestedCollection {
  /** The field of the record that holds the array. */
  field: string;
  entity: Entity;
  /** The child's foreign key to the parent record. */
  parent: string;
}

/** Where a record's visibility comes from (http.md, Roles and visibility). */
export type Visibility =
  | { kind: 'public' }
  /** Foreign keys leading from the record to the project that decides (e.g. location -> project). */
  | { kind: 'project'; path: readonly string[] }
  /** Reports linked to organisations are shown to their employees (and administrators) only. */
  | { kind: 'organisations' }
  /** The caller's own projects (my_projects). */
  | { kind: 'own-projects' };

export interface OrderTerm {
  field: string;
  descending: boolean;
}

/** Batched reads of related rows for one page: one query per relation, never one per record. */
export interface Lookup {
  byColumn(table: string, column: string, values: readonly unknown[]): Promise<Row[]>;
  /** Which of these records (of `table`) the caller may see (store/visibility.ts decides). */
  visible(table: string, ids: readonly number[]): Promise<Set<number>>;
  /** Which of these projects the caller may edit: change the records tied to them. */
  editable(projects: readonly number[]): Promise<Set<number>>;
}

/** Who may create, change and delete records (http.md, Roles and visibility; resources.md). */
export type Writers =
  /** Callers with one of `roles` at an organisation that is a partner of the record's project. */
  | { kind: 'partners'; roles: ReadonlySet<string> }
  /**
   * Records with an author (`serviceFields.author`): partners with `roles` create them; only the
   * author changes their text; the author or partners with `moderators` roles delete them.
   */
  | { kind: 'authors'; roles: ReadonlySet<string>; moderators: ReadonlySet<string> }
  /** Edit roles of the organisation itself may change it; administrators create and delete. */
  | { kind: 'organisation' }
  | { kind: 'admins' };

export interface Resource extends Entity {
  /** Path segment and dataset file name. */
  name: string;
  /** `"Budget Item"`: OPTIONS names the list "Budget Item List", a record "Budget Item Instance". */
  title: string;
  /** The model's verbose_name where it is not the name with spaces (`report` for `reports`). */
  verboseName?: string;
  /** The original's view description, shown by OPTIONS. */
  description: string;
  defaultOrder: readonly OrderTerm[];
  /** Ids listed first, in this order, when no ordering is asked for (reports: the seed's order). */
  pinnedOrder?: readonly number[];
  visibility: Visibility;
  /** Related rows the derived fields read, each by name. */
  related?: Readonly<Record<string, Relation>>;
  /** What simple relations cannot say: fills each record's `related` (same index as `rows`). */
  expand?(rows: Row[], related: Related[], lookup: Lookup, caller: Caller): Promise<void>;
  /** The tables `expand` reads (its answers are fresh only while they are unchanged: reads.ts). */
  reads?: readonly string[];
  /** Default: partners' edit roles for project records, administrators for the rest. */
  writers?: Writers;
  /** Fields the service sets, never the caller: `created`/`modified` timestamps, the author. */
  serviceFields?: { created?: string; modified?: string; author?: string };
  readOnly?: boolean;
}

/** The path to the project that decides a record's visibility, if any. */
export function projectPathOf(entity: Entity | Resource): readonly string[] | null {
  if ('visibility' in entity) return entity.visibility.kind === 'project' ? entity.visibility.path : null;
  return entity.projectPath ?? null;
}

export function writersOf(resource: Resource): Writers {
  return resource.writers ?? (resource.visibility.kind === 'project' ? { kind: 'partners', roles: EDIT_ROLES } : { kind: 'admins' });
}

/** A resource with the usual defaults: table named as the list, no description, ordered by id. */
export function resource(spec: Omit<Resource, 'table' | 'description' | 'defaultOrder'> & Partial<Pick<Resource, 'table' | 'description' | 'defaultOrder'>>): Resource {
  return { table: spec.name, description: '', defaultOrder: [{ field: 'id', descending: false }], ...spec };
}

/** Visibility of records tied to a project through the foreign keys of `path`. */
export const ownedByProject = (...path: string[]): Visibility => ({ kind: 'project', path });

// ---- field builders ------------------------------------------------------------------------

interface Options {
  null?: boolean;
  blank?: boolean;
  required?: boolean;
  default?: unknown;
  max?: number;
  min?: number;
  maxLength?: number;
  choices?: readonly (string | number)[];
  unique?: true | 'ci';
  orderable?: boolean;
  index?: 'filter' | 'none' | 'search';
  filter?: 'admins' | 'no-one';
  pkChoices?: boolean;
  verbose?: string;
}

function nullable(schema: TSchema, isNullable: boolean): TSchema {
  // `type: [t, "null"]` rather than anyOf: fast-json-stringify compiles it to a plain check.
  // A schema without a type (any JSON value) already admits null.
  if (!isNullable || schema.type === undefined) return schema;
  return Type.Unsafe({ ...schema, type: [schema.type, 'null'] });
}

function stored(type: ScalarType, base: TSchema, options: Options, extra: Partial<StoredField> = {}): StoredField {
  const isNullable = options.null ?? false;
  return {
    kind: 'stored',
    type,
    nullable: isNullable,
    blank: options.blank ?? type === 'text',
    required: options.required ?? false,
    default: options.default,
    maxLength: options.maxLength,
    min: options.min,
    max: options.max,
    choices: options.choices,
    unique: options.unique,
    orderable: options.orderable ?? type !== 'json',
    index: options.index,
    filter: options.filter,
    pkChoices: options.pkChoices,
    verbose: options.verbose,
    schema: nullable(base, isNullable),
    ...extra,
  };
}

export const id = (options: Options = {}): StoredField => stored('int', Type.Integer(), { required: true, ...options });
export const int = (options: Options = {}): StoredField => stored('int', Type.Integer(), options);
export const decimal = (total: number, decimals: number, options: Options = {}): StoredField =>
  stored('decimal', Type.Number(), options, { digits: [total, decimals] });
export const text = (options: Options = {}): StoredField => stored('text', Type.String(), options);
export const url = (options: Options = {}): StoredField =>
  stored('text', Type.String(), { maxLength: 200, ...options }, { url: true });
export const email = (options: Options = {}): StoredField =>
  stored('text', Type.String(), options, { email: true });
export const date = (options: Options = {}): StoredField => stored('date', Type.String(), options);
export const timestamp = (options: Options = {}): StoredField => stored('timestamp', Type.String(), options);
export const bool = (options: Options = {}): StoredField => stored('bool', Type.Boolean(), options);
export const json = (schema: TSchema = Type.Unknown(), options: Options = {}): StoredField =>
  stored('json', schema, options);

/** A foreign key: the target's id. Ordering uses the id value (decision D5). */
export const fk = (table: string, options: Options = {}): StoredField =>
  stored('int', Type.Integer(), options, { references: table });

/** Text holding a code of an IATI code list (or blank). */
export const code = (list: CodelistName, options: Options & { legacy?: readonly string[] } = {}): StoredField =>
  stored('text', Type.String(), options, { codelist: list, legacyCodes: options.legacy });

export const derived = (schema: TSchema, compute: DerivedField['compute']): DerivedField => ({
  kind: 'derived',
  schema,
  compute,
});

/** A value the original always renders the same way (null, []). */
export const constant = (schema: TSchema, value: unknown): DerivedField =>
  derived(schema, () => (Array.isArray(value) ? [] : value));

export const Nullable = (schema: TSchema): TSchema => nullable(schema, true);

// ---- helpers for declarations ----------------------------------------------------------------

export const asc = (field: string): OrderTerm => ({ field, descending: false });
export const desc = (field: string): OrderTerm => ({ field, descending: true });

/** `start` must not be later than `end` when both are set. */
export const periodOrder = (start: string, end: string): RecordCheck => (record) =>
  record[start] && record[end] && record[start] > record[end]
    ? { field: end, message: `must not be before ${start}` }
    : null;

export function isStored(field: Field): field is StoredField {
  return field.kind === 'stored';
}

const storedFieldCache = new WeakMap<Entity, [string, StoredField][]>();

/** The entity's stored fields in declaration order (computed once: import calls it per record). */
export function storedFields(entity: Entity): [string, StoredField][] {
  let fields = storedFieldCache.get(entity);
  if (!fields) {
    fields = Object.entries(entity.fields).filter((entry): entry is [string, StoredField] => isStored(entry[1]));
    storedFieldCache.set(entity, fields);
  }
  return fields;
}
