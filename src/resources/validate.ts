/**
 * Checks a written record against its declaration (resources.md, "Writes") and returns the
 * record as it will be stored: defaults filled in, timestamps canonical, parsed values; values
 * written through the API are read as DRF reads them first (written-values.ts). Problems are
 * data (problems.ts), worded by messages.ts.
 */
import { Value } from '@sinclair/typebox/value';
import { codes, hasCode } from '../codelists/index.ts';
import { isIsoDate, toCanonicalUtc } from '../text/time.ts';
import { storedFields, type Entity, type Row, type StoredField } from './define.ts';
import type { Check, Problem } from './problems.ts';
import { readWritten } from './written-values.ts';

export type { Check, Problem } from './problems.ts';

const MAX_INT = 2 ** 31 - 1;
const URL_PATTERN = /^https?:\/\/[^\s/$.?#][^\s]*$/i;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function defaultValue(field: StoredField): { value: unknown } | null {
  if (field.default !== undefined) return { value: Array.isArray(field.default) ? [...field.default] : field.default };
  if (field.nullable) return { value: null };
  if (field.type === 'text') return { value: '' };
  if (field.type === 'bool') return { value: false };
  return null;
}

function decimalProblem(field: StoredField, value: number): Check {
  const [total, decimals] = field.digits ?? [20, 2];
  const scaled = value * 10 ** decimals;
  if (Math.abs(scaled - Math.round(scaled)) > 1e-6 * Math.max(1, Math.abs(scaled))) return { code: 'decimal_places', value, decimals };
  if (Math.abs(value) >= 10 ** (total - decimals)) return { code: 'whole_digits', value, digits: total - decimals };
  return null;
}

/** C0 controls other than tab, LF and CR: they break XML and mean nothing in text (DRF refuses NUL). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F]/;
const LONE_SURROGATE = /\p{Cs}/u;

/** Text every store keeps and every format writes as it was given. */
function characterProblem(value: string): Check {
  const control = CONTROL.exec(value);
  if (control) return control[0] === '\0' ? { code: 'null_character' } : { code: 'control_character', point: control[0].charCodeAt(0) };
  const surrogate = LONE_SURROGATE.exec(value);
  return surrogate ? { code: 'surrogate', point: surrogate[0].charCodeAt(0) } : null;
}

/** JSON values nest at most this deep: deeper ones cannot be rendered (XML, JSON) without risk. */
export const MAX_JSON_DEPTH = 32;

/**
 * A JSON value has the shape its declaration gives (a field with a `parse` hook checks its own),
 * its keys and texts follow the rules of text, and its nesting is bounded.
 */
function jsonProblem(field: StoredField, value: unknown): Check {
  const characters = jsonTextProblem(value);
  if (characters || field.parse || Value.Check(field.schema, value)) return characters;
  if (field.schema.type === 'array' && !Array.isArray(value)) return { code: 'not_list', value };
  if (field.schema.items?.type === 'integer' && Array.isArray(value)) return { code: 'not_pk', value: (value as unknown[]).find((item) => !Number.isInteger(item)) };
  return { code: 'invalid_json', value };
}

function jsonTextProblem(value: unknown, depth = 1): Check {
  if (typeof value === 'string') return characterProblem(value);
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_JSON_DEPTH) return { code: 'json_depth', max: MAX_JSON_DEPTH };
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const problem = (typeof key === 'string' ? characterProblem(key) : null) ?? jsonTextProblem(item, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/**
 * Every text textProblem lets a field hold, where that is a closed list: a code list's codes and
 * its legacy ones, or text choices; blank too. Null for a free text. (Filters lean on it:
 * store/filter-sql.ts, closedValues.)
 */
export function allowedTexts(field: StoredField): string[] | null {
  if (field.type !== 'text') return null;
  if (field.codelist) return [...codes(field.codelist), ...(field.legacyCodes ?? []), ''];
  if (field.choices?.length && field.choices.every((choice) => typeof choice === 'string')) return [...(field.choices as string[]), ''];
  return null;
}

function textProblem(field: StoredField, value: string): Check {
  if (value === '') return field.blank ? null : { code: 'blank' };
  const characters = characterProblem(value);
  if (characters) return characters;
  if (field.maxLength !== undefined) {
    const length = [...value].length;
    if (length > field.maxLength) return { code: 'max_length', max: field.maxLength, length };
  }
  if (field.codelist && !hasCode(field.codelist, value) && !field.legacyCodes?.includes(value)) return { code: 'invalid_code', value, list: field.codelist };
  if (field.url && !URL_PATTERN.test(value)) return { code: 'invalid_url', value };
  if (field.email && !EMAIL_PATTERN.test(value)) return { code: 'invalid_email', value };
  return choiceProblem(field, value);
}

function rangeProblem(field: StoredField, value: number): Check {
  if (field.min !== undefined && value < field.min) return { code: 'min_value', value, limit: field.min };
  if (field.max !== undefined && value > field.max) return { code: 'max_value', value, limit: field.max };
  return null;
}

function choiceProblem(field: StoredField, value: string | number): Check {
  if (!field.choices || field.choices.includes(value)) return null;
  return { code: 'invalid_choice', value, choices: field.choices };
}

/** The problem with one value, or null; `value` is not null here. */
function valueProblem(field: StoredField, value: unknown): Check {
  switch (field.type) {
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_INT) return { code: field.references ? 'not_pk' : 'not_integer', value };
      return rangeProblem(field, value) ?? choiceProblem(field, value);
    case 'decimal':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { code: 'not_number', value };
      return decimalProblem(field, value) ?? rangeProblem(field, value);
    case 'text':
      return typeof value === 'string' ? textProblem(field, value) : { code: 'not_string', value };
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? null : { code: 'invalid_date', value };
    case 'timestamp':
      return typeof value === 'string' && toCanonicalUtc(value) !== null ? null : { code: 'invalid_datetime', value };
    case 'bool':
      return typeof value === 'boolean' ? null : { code: 'not_boolean', value };
    case 'json':
      return jsonProblem(field, value);
  }
}

export interface CleanOptions {
  /** Only the fields present are checked and returned (PATCH, and PUT of an existing record). */
  partial?: boolean;
  /** Fields the caller may not write (read-only ones): ignored when given. */
  ignore?: ReadonlySet<string>;
  /**
   * 'api': values as a client writes them, read as DRF's fields read them (written-values.ts);
   * 'import' (the default): values as a dataset holds them, checked strictly and kept as given.
   */
  source?: 'api' | 'import';
}

/** The stored form of `input`, or every problem found (in field order). */
export function cleanRecord(entity: Entity, input: Row, options: CleanOptions = {}): { record: Row; problems: Problem[] } {
  const record: Row = {};
  const problems: Problem[] = [];
  const report = (field: string, check: Check) => problems.push({ field, ...check } as Problem);
  for (const [name, field] of storedFields(entity)) {
    if (options.ignore?.has(name)) continue;
    let value = input[name];
    if (value === undefined) {
      if (options.partial) continue;
      const fallback = field.required ? null : defaultValue(field);
      if (!fallback) {
        report(name, { code: 'required' });
        continue;
      }
      value = fallback.value;
    }
    if (value === null) {
      if (!field.nullable) report(name, { code: 'null' });
      record[name] = null;
      continue;
    }
    if (field.parse) {
      const parsed = field.parse(value);
      if ('error' in parsed) {
        report(name, { code: 'rule', text: parsed.error });
        continue;
      }
      value = parsed.value;
    }
    const read = options.source === 'api' ? readWritten(field, value) : null;
    if (read?.problems) {
      for (const problem of read.problems) report(name, problem);
      continue;
    }
    if (read) {
      record[name] = read.value;
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem) report(name, problem);
    record[name] = field.type === 'timestamp' ? toCanonicalUtc(value as string) : value;
  }
  return { record, problems };
}

/** The record-level rules of the entity (period order, lengths against other fields). */
export function checkRecord(entity: Entity, record: Row): Problem[] {
  return (entity.checks ?? [])
    .map((check) => check(record))
    .filter((problem): problem is { field: string; message: string } => problem !== null)
    .map((problem) => ({ field: problem.field, code: 'rule', text: problem.message }));
}
