/**
 * How Django REST Framework's fields read a value written through the API — the fields a
 * ModelSerializer makes of RSR's models — so that writes are stored and refused as RSR's editor
 * and scripts expect: text trimmed and checked for characters XML cannot hold, numbers given as
 * text, dates in RSR's two input formats, choices compared as Python's `str` of the input.
 * Imports read their values strictly instead (validate.ts). DRF's sources are cited by class.
 */
import { hasCode } from '../codelists/index.ts';
import { pythonFloat } from '../text/python.ts';
import type { StoredField } from './define.ts';
import type { Check } from './problems.ts';

/** What a field read: the value to store, or the problems DRF would report (in its order). */
export type Read = { value: unknown; problems?: undefined } | { value?: undefined; problems: Check[] };

const refuse = (...problems: Check[]): Read => ({ problems });

/** Characters Python's `str.isspace` accepts (what `str.strip()` removes): not JavaScript's set. */
const PYTHON_SPACE = new Set([..."\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"].concat(
  Array.from({ length: 11 }, (_, index) => String.fromCharCode(0x2000 + index)),
));

/** Python's `str.strip()`, by index (a pattern anchored at the end would backtrack over long texts). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PYTHON_SPACE.has(text[start])) start++;
  while (end > start && PYTHON_SPACE.has(text[end - 1])) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Python's `str()` of a JSON value, as DRF formats `"{input}" is not a valid choice.` */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonFloat(value);
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as object).map(([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`).join(', ')}}`;
}

/** Django's MAX_STRING_LENGTH guard of numeric fields against huge texts. */
const MAX_NUMBER_TEXT = 1000;
/** Django's IntegerField range (PostgreSQL `integer`), which ModelSerializer turns into min/max. */
const INTEGER_RANGE = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** RSR's XML-character validator (akvo.rsr.validators.string_validator): its first illegal character. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NOT_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFDD0-\uFDDF\uFFFE\uFFFF\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;
const LONE_SURROGATE = /\p{Cs}/u;

/** Django's URLValidator (3.2): http(s) or ftp(s), a host with a dot (or localhost, or an IP). */
const UL = '\u00a1-\uffff';
const HOSTNAME = `[a-z${UL}0-9](?:[a-z${UL}0-9-]{0,61}[a-z${UL}0-9])?`;
const DOMAIN = `(?:\\.(?!-)[a-z${UL}0-9-]{1,63}(?<!-))*`;
const TLD = `\\.(?!-)(?:[a-z${UL}-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?`;
const IPV4 = '(?:0|25[0-5]|2[0-4]\\d|1\\d?\\d?|[1-9]\\d?)(?:\\.(?:0|25[0-5]|2[0-4]\\d|1\\d?\\d?|[1-9]\\d?)){3}';
const URL_PATTERN = new RegExp(
  `^(?:[a-z0-9.+-]*)://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:${IPV4}|\\[[0-9a-f:.]+\\]|(?:${HOSTNAME}${DOMAIN}${TLD}|localhost))(?::\\d{2,5})?(?:[/?#][^\\s]*)?$`,
  'iu',
);
const URL_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps']);

function validUrl(value: string): boolean {
  if (value.length > 2048 || /[\t\r\n]/.test(value)) return false;
  if (!URL_SCHEMES.has(value.split('://')[0].toLowerCase())) return false;
  let host: string;
  try {
    host = new URL(value).hostname;
  } catch {
    return false;
  }
  return URL_PATTERN.test(value) && host.length <= 253;
}

/**
 * DRF's CharField (trim_whitespace, allow_blank) with the validators ModelSerializer gives RSR's
 * fields, in their order: ValidXMLCharField's XML characters, max_length, NUL, surrogates; a
 * URLField has no XML check but Django's URLValidator last, and its own word for a wrong type.
 */
function readText(field: StoredField, value: unknown): Read {
  if (typeof value === 'boolean' || (typeof value !== 'string' && typeof value !== 'number')) return refuse(field.url ? { code: 'invalid_url', value } : { code: 'not_string', value });
  const text = pythonStrip(typeof value === 'number' ? pythonStr(value) : value);
  if (text === '') return field.blank ? { value: '' } : refuse({ code: 'blank' });
  const problems: Check[] = [];
  const illegal = NOT_XML.exec(text);
  if (illegal && !field.url) problems.push({ code: 'xml_character', character: illegal[0] });
  const length = [...text].length;
  if (field.maxLength !== undefined && length > field.maxLength) problems.push({ code: 'max_length', max: field.maxLength, length });
  if (text.includes('\0')) problems.push({ code: 'null_character' });
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) problems.push({ code: 'surrogate', point: surrogate[0].charCodeAt(0) });
  if (field.url && !validUrl(text)) problems.push({ code: 'invalid_url', value: text });
  // Not Django's: a URL it would take with a character XML cannot hold is refused too, or the XML answers would break.
  if (illegal && problems.length === 0) problems.push({ code: 'xml_character', character: illegal[0] });
  return problems.length ? { problems } : { value: text };
}

/**
 * DRF's ChoiceField (what ModelSerializer makes of any field with choices, code lists included):
 * the input's Python `str` must be a choice's; blank only where the model allows it.
 */
function readChoice(field: StoredField, value: unknown): Read {
  const key = pythonStr(value);
  if (key === '' && field.blank) return { value: '' };
  if (field.pkChoices) return readPkChoice(field, value);
  if (field.codelist ? hasCode(field.codelist, key) : false) return { value: key };
  const choice = field.choices?.find((each) => String(each) === key);
  if (choice !== undefined) return { value: choice };
  return refuse({ code: 'invalid_choice', value: key, choices: field.choices ?? [] });
}

/** A foreign key on RSR whose targets this service knows as a fixed list (budget item labels). */
function readPkChoice(field: StoredField, value: unknown): Read {
  const read = readPk(value);
  if (read.problems) return read;
  return field.choices?.includes(read.value as number) ? read : refuse({ code: 'does_not_exist', value: pythonStr(value) });
}

/** Python's `int()` of text: digits with an optional sign, underscores between digits, spaces around. */
const PYTHON_INT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;
/** DRF's IntegerField.re_decimal: a whole number may be written `12.0`. */
const WHOLE_DECIMAL = /\.0*\s*$/;

const parseInt10 = (text: string): number => Number(text.trim().replace(/_/g, ''));

/** DRF's PrimaryKeyRelatedField: an id as a number or text (whether it exists is the store's to say). */
function readPk(value: unknown): Read {
  let id: number;
  if (typeof value === 'string' && PYTHON_INT.test(value)) id = parseInt10(value);
  // DRF would store 1116 for 1116.5 (Django's int()); a fraction is refused here instead.
  else if (typeof value === 'number' && Number.isInteger(value)) id = value;
  else return refuse({ code: 'not_pk', value });
  // No record has an id past the integer range; the database would not even compare one.
  return Math.abs(id) > INTEGER_RANGE.max ? refuse({ code: 'does_not_exist', value: pythonStr(value) }) : { value: id };
}

/** DRF's IntegerField with the range of the model's field (Django's integer unless declared smaller). */
function readInteger(field: StoredField, value: unknown): Read {
  if (typeof value === 'string' && value.length > MAX_NUMBER_TEXT) return refuse({ code: 'max_string_length' });
  let number: number;
  if (typeof value === 'number' && Number.isInteger(value)) number = value;
  else if (typeof value === 'string' && PYTHON_INT.test(value.replace(WHOLE_DECIMAL, ''))) number = parseInt10(value.replace(WHOLE_DECIMAL, ''));
  else return refuse({ code: 'not_integer', value });
  const max = field.max ?? INTEGER_RANGE.max;
  const min = field.min ?? INTEGER_RANGE.min;
  if (number > max) return refuse({ code: 'max_value', value: number, limit: max });
  if (number < min) return refuse({ code: 'min_value', value: number, limit: min });
  return { value: number };
}

/** Python's Decimal syntax (finite values): the sign, digits, point and exponent as written. */
const PYTHON_DECIMAL = /^([+-]?)(\d+(?:_\d+)*)?(?:\.(\d+(?:_\d+)*)?)?(?:e([+-]?\d+(?:_\d+)*))?$/i;

/** DRF's DecimalField.validate_precision, on the digits as written ("12.500" has three places). */
function precisionProblem(field: StoredField, whole: string, fraction: string, exponent: number): Check {
  const [maxDigits, places] = field.digits ?? [20, 2];
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  const power = exponent - fraction.length;
  let total: number;
  let wholeDigits: number;
  let decimals: number;
  if (power >= 0) [total, wholeDigits, decimals] = [digits.length + power, digits.length + power, 0];
  else if (digits.length > -power) [total, wholeDigits, decimals] = [digits.length, digits.length + power, -power];
  else [total, wholeDigits, decimals] = [-power, 0, -power];
  const value = Number(`${whole || 0}.${fraction || 0}e${exponent}`);
  if (total > maxDigits) return { code: 'max_digits', digits: maxDigits };
  if (decimals > places) return { code: 'decimal_places', value, decimals: places };
  if (wholeDigits > maxDigits - places) return { code: 'whole_digits', value, digits: maxDigits - places };
  return null;
}

/** DRF's DecimalField: a number or its text (`1e3` too); blank text is null where null is allowed. */
function readDecimal(field: StoredField, value: unknown): Read {
  const text = pythonStrip(typeof value === 'number' ? String(value) : pythonStr(value));
  if (text === '' && field.nullable) return { value: null };
  if (text.length > MAX_NUMBER_TEXT) return refuse({ code: 'max_string_length' });
  const match = typeof value === 'boolean' ? null : PYTHON_DECIMAL.exec(text);
  if (!match || (match[2] === undefined && match[3] === undefined)) return refuse({ code: 'not_number', value });
  const whole = (match[2] ?? '').replace(/_/g, '');
  const fraction = (match[3] ?? '').replace(/_/g, '');
  const exponent = Number((match[4] ?? '0').replace(/_/g, ''));
  const precision = precisionProblem(field, whole, fraction, exponent);
  if (precision) return refuse(precision);
  const number = Number(`${match[1]}${whole || '0'}.${fraction || '0'}e${exponent}`);
  if (field.max !== undefined && number > field.max) return refuse({ code: 'max_value', value: number, limit: field.max });
  if (field.min !== undefined && number < field.min) return refuse({ code: 'min_value', value: number, limit: field.min });
  return { value: number };
}

/** Django's parse_date (3.2) and RSR's second DATE_INPUT_FORMATS entry, strptime's `%d-%m-%Y`. */
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})\n?$/;
const DAY_MONTH_YEAR = /^(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])-(1[0-2]|0[1-9]|[1-9])-(\d{4})$/;

function calendarDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function readDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const iso = ISO_DATE.exec(value);
  const iso8601 = iso ? calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3])) : null;
  if (iso8601) return iso8601;
  const dmy = DAY_MONTH_YEAR.exec(value);
  return dmy ? calendarDate(Number(dmy[3]), Number(dmy[2]), Number(dmy[1].trim())) : null;
}

// DRF's BooleanField.TRUE_VALUES / FALSE_VALUES / NULL_VALUES.
const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE_VALUES = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);
const NULL_VALUES = new Set<unknown>(['null', 'Null', 'NULL', '']);

function readBoolean(field: StoredField, value: unknown): Read {
  if (TRUE_VALUES.has(value)) return { value: true };
  if (FALSE_VALUES.has(value)) return { value: false };
  if (field.nullable && NULL_VALUES.has(value)) return { value: null };
  return refuse({ code: 'not_boolean', value });
}

/**
 * One written value (not null: the caller handled null) as DRF reads it; JSON fields and
 * timestamps are left to the strict checks (`null` returned).
 */
export function readWritten(field: StoredField, value: unknown): Read | null {
  if (field.choices || field.codelist) return readChoice(field, value);
  switch (field.type) {
    case 'text':
      return readText(field, value);
    case 'int':
      return field.references ? readPk(value) : readInteger(field, value);
    case 'decimal':
      return readDecimal(field, value);
    case 'date': {
      const date = readDate(value);
      return date ? { value: date } : refuse({ code: 'invalid_date', value });
    }
    case 'bool':
      return readBoolean(field, value);
    default:
      return null;
  }
}

/** A JSON field's value in a form is JSON text; text that is not JSON is judged as it is. */
function jsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A form's (urlencoded or multipart) fields as DRF's `Field.get_value` reads HTML input: a
 * checkbox left out is false (null allowed or not: DRF 3.14) unless the write is partial, and an
 * empty value means null or the default where blank text is not allowed.
 */
export function formValues(fields: readonly [string, StoredField][], input: Record<string, unknown>, partial: boolean): Record<string, unknown> {
  const output: Record<string, unknown> = { ...input };
  for (const [name, field] of fields) {
    if (!(name in input)) {
      if (!partial && field.type === 'bool') output[name] = false;
      continue;
    }
    if (field.type === 'json' && typeof input[name] === 'string') output[name] = jsonText(input[name] as string);
    if (input[name] !== '') continue;
    const blankText = field.blank && (field.type === 'text' || field.codelist !== undefined);
    if (field.nullable) output[name] = blankText ? '' : null;
    else if (!field.required && !blankText) delete output[name];
  }
  return output;
}
