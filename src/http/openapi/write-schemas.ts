/**
 * What a write must hold, from the declarations validation reads: each stored field's type,
 * bounds and allowed values, and the body schemas of POST, PUT and PATCH (`<name>_write`,
 * `_replace`, `_patch`), which differ in what they require and whether defaults are filled in.
 */
import { codes } from '../../codelists/index.ts';
import { storedFields, type Resource, type StoredField } from '../../resources/define.ts';
import { plain, ref, type Json } from './json.ts';
import { rsrShape, withTitles } from './shapes.ts';

/** Django's IntegerField: ModelSerializer bounds every integer field by it unless the model bounds it closer. */
export const INTEGER_RANGE = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };
const JSON_TYPE = { int: 'integer', decimal: 'number', text: 'string', date: 'string', timestamp: 'string', bool: 'boolean' } as const;

/** How a body's schema treats defaults and required fields: POST fills defaults in; PUT keeps stored values; PATCH changes what it names. */
type WriteKind = 'create' | 'replace' | 'patch';

/** The values a coded field takes: its code list's codes (not the legacy ones imports accept) or its choices. */
function allowedValues(field: StoredField): readonly (string | number)[] | undefined {
  return field.codelist ? codes(field.codelist) : field.choices;
}

/** Decimal places and the bound Django's DecimalField(max_digits, decimal_places) implies. */
function decimalBounds(field: StoredField): Json {
  const [total, places] = field.digits ?? [20, 2];
  // A power of ten is exact as a double, where 10^n − 10^−places often is not: the bound is exclusive.
  const limit = 10 ** (total - places);
  return {
    ...(field.min !== undefined ? { minimum: field.min } : { exclusiveMinimum: -limit }),
    ...(field.max !== undefined ? { maximum: field.max } : { exclusiveMaximum: limit }),
    description: `At most ${total - places} digits before the decimal point and ${places} after it.`,
  };
}

/** What the server checks of a text: its length, that it is not blank (where it may not be), a URL. */
function textBounds(field: StoredField): Json {
  const bounds: Json = {};
  if (field.maxLength !== undefined) bounds.maxLength = field.maxLength;
  if (!field.blank) bounds.minLength = 1;
  // A blank URL is no URL, and is allowed where the field may be blank.
  if (field.url) Object.assign(bounds, field.blank ? { anyOf: [{ format: 'uri' }, { const: '' }] } : { format: 'uri' });
  return bounds;
}

function scalarBounds(field: StoredField): Json {
  // An id is positive: a value under 1 names no record, whatever the table.
  if (field.type === 'int' && field.references) return { minimum: 1, maximum: INTEGER_RANGE.maximum };
  if (field.type === 'int') return { minimum: field.min ?? INTEGER_RANGE.minimum, maximum: field.max ?? INTEGER_RANGE.maximum };
  if (field.type === 'decimal') return decimalBounds(field);
  if (field.type === 'text') return textBounds(field);
  if (field.type === 'date') return { format: 'date' };
  if (field.type === 'timestamp') return { format: 'date-time' };
  return {};
}

/** A scalar field as written: its type (null where nullable) and what validation checks of it. */
function scalarWriteSchema(field: StoredField): Json {
  const type = JSON_TYPE[field.type as keyof typeof JSON_TYPE];
  const schema: Json = { type: field.nullable ? [type, 'null'] : type };
  const allowed = allowedValues(field);
  if (!allowed) return { ...schema, ...scalarBounds(field) };
  const blank = field.blank && type === 'string' ? [''] : [];
  return { ...schema, enum: [...allowed, ...blank, ...(field.nullable ? [null] : [])] };
}

function describedAs(field: StoredField): string | undefined {
  if (field.references) return `The id of a ${field.references}.`;
  if (field.codelist) return `A code of the IATI ${field.codelist} code list.`;
  return undefined;
}

function writeFieldSchema(resource: Resource, name: string, field: StoredField, kind: WriteKind): Json {
  const written = field.type === 'json' ? rsrShape(resource, name, plain(field.schema)) : scalarWriteSchema(field);
  const description = [describedAs(field), written.description].filter(Boolean).join(' ');
  if (description) written.description = description;
  // Only a create fills defaults in (PUT keeps the stored value of a field it leaves out): a
  // client generated from the document would otherwise send them on every PUT and PATCH.
  if (kind === 'create' && field.default !== undefined && typeof field.default !== 'function') written.default = field.default;
  return written;
}

/** The body of a write: the stored fields the caller may set (not the id, not the service's own). */
export function writeSchema(resource: Resource, kind: WriteKind): Json {
  const service = new Set(['id', ...Object.values(resource.serviceFields ?? {})]);
  const fields = storedFields(resource).filter(([name]) => !service.has(name));
  const schema: Json = { type: 'object', description: WRITE_MEANING[kind], properties: Object.fromEntries(fields.map(([name, field]) => [name, writeFieldSchema(resource, name, field, kind)])) };
  const required = fields.filter(([, field]) => field.required).map(([name]) => name);
  if (kind !== 'patch' && required.length) schema.required = required;
  return withTitles(resource, schema);
}

const WRITE_MEANING: Record<WriteKind, string> = {
  create: 'A new record: the required fields, and any other; a field left out takes its default.',
  replace: 'The whole record: the required fields must be given; an optional field left out keeps its stored value.',
  patch: 'The fields to change; the others keep their values.',
};

/** What a write body may be sent as (the parsers of app.ts): the same fields in each. */
export function writeBody(schema: string): Json {
  const body = { schema: ref('schemas', schema) };
  return { required: true, content: { 'application/json': body, 'application/x-www-form-urlencoded': body, 'multipart/form-data': body } };
}
