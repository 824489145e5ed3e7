/**
 * Checks a written record against its declaration (resources.md, "Writes") and returns the
 * record as it will be stored: defaults filled in, timestamps canonical, parsed values.
 * Used by import and by the write API alike.
 */
import { hasCode } from '../codelists/index.js';
import { toCanonicalUtc, isIsoDate } from '../text/time.js';
import { storedFields, type Entity, type Row, type StoredField } from './define.js';

export interface Problem {
  field: string;
  /** Reads after the field's name: "currency 'XXX' is not a currency code". */
  message: string;
}

const MAX_INT = 2 ** 31 - 1;
const URL_PATTERN = /^https?:\/\/[^\s/$.?#][^\s]*$/i;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const shown = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value));
const article = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

function defaultValue(field: StoredField): { value: unknown } | null {
  if (field.default !== undefined) return { value: Array.isArray(field.default) ? [...field.default] : field.default };
  if (field.nullable) return { value: null };
  if (field.type === 'text') return { value: '' };
  if (field.type === 'bool') return { value: false };
  return null;
}

function decimalProblem(field: StoredField, value: number): string | null {
  const [total, decimals] = field.digits ?? [20, 2];
  const scaled = value * 10 ** decimals;
  if (Math.abs(scaled - Math.round(scaled)) > 1e-6 * Math.max(1, Math.abs(scaled))) {
    return `${value} has more than ${decimals} decimal places`;
  }
  if (Math.abs(value) >= 10 ** (total - decimals)) return `${value} has more than ${total - decimals} digits before the decimal point`;
  return null;
}

function textProblem(field: StoredField, value: string): string | null {
  if (value === '') return field.blank ? null : 'may not be blank';
  if (field.maxLength !== undefined) {
    const length = [...value].length;
    if (length > field.maxLength) return `has ${length} characters, at most ${field.maxLength} are allowed`;
  }
  if (field.codelist && !hasCode(field.codelist, value) && !field.extraCodes?.includes(value)) {
    return `${shown(value)} is not ${article(field.codelist.replace(/_/g, ' '))} code`;
  }
  if (field.url && !URL_PATTERN.test(value)) return `${shown(value)} is not a valid URL`;
  if (field.email && !EMAIL_PATTERN.test(value)) return `${shown(value)} is not a valid e-mail address`;
  return null;
}

/** The problem with one value, or null; `value` is not null here. */
function valueProblem(field: StoredField, value: unknown): string | null {
  switch (field.type) {
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_INT) return `${shown(value)} is not an integer`;
      break;
    case 'decimal':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${shown(value)} is not a number`;
      return decimalProblem(field, value) ?? rangeProblem(field, value);
    case 'text':
      if (typeof value !== 'string') return `${shown(value)} is not a string`;
      return textProblem(field, value) ?? (value === '' ? null : choiceProblem(field, value));
    case 'date':
      if (typeof value !== 'string' || !isIsoDate(value)) return `${shown(value)} is not a date (YYYY-MM-DD)`;
      return null;
    case 'timestamp':
      if (typeof value !== 'string' || toCanonicalUtc(value) === null) return `${shown(value)} is not an ISO 8601 timestamp with a UTC offset`;
      return null;
    case 'bool':
      if (typeof value !== 'boolean') return `${shown(value)} is not a boolean`;
      return null;
    case 'json':
      return null;
  }
  return rangeProblem(field, value as number) ?? choiceProblem(field, value);
}

function rangeProblem(field: StoredField, value: number): string | null {
  if (field.min !== undefined && value < field.min) return `${value} is less than ${field.min}`;
  if (field.max !== undefined && value > field.max) return `${value} is more than ${field.max}`;
  return null;
}

function choiceProblem(field: StoredField, value: unknown): string | null {
  if (!field.choices || field.choices.includes(value as string | number)) return null;
  return `${shown(value)} is not one of ${field.choices.map(shown).join(', ')}`;
}

/** The stored form of `input`, or the problems found (in field order). */
export function cleanRecord(entity: Entity, input: Row): { record: Row; problems: Problem[] } {
  const record: Row = {};
  const problems: Problem[] = [];
  for (const [name, field] of storedFields(entity)) {
    let value = input[name];
    if (value === undefined) {
      const fallback = field.required ? null : defaultValue(field);
      if (!fallback) {
        problems.push({ field: name, message: 'is required' });
        continue;
      }
      value = fallback.value;
    }
    if (value === null) {
      if (!field.nullable) problems.push({ field: name, message: 'may not be null' });
      record[name] = null;
      continue;
    }
    if (field.parse) {
      const parsed = field.parse(value);
      if ('error' in parsed) {
        problems.push({ field: name, message: parsed.error });
        continue;
      }
      value = parsed.value;
    }
    const problem = valueProblem(field, value);
    if (problem) problems.push({ field: name, message: problem });
    record[name] = field.type === 'timestamp' ? toCanonicalUtc(value as string) : value;
  }
  if (problems.length === 0) {
    for (const check of entity.checks ?? []) {
      const problem = check({ ...input, ...record });
      if (problem) problems.push(problem);
    }
  }
  return { record, problems };
}
