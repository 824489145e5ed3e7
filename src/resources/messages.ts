/** How problems read: on one import line, and in the API's DRF-style validation errors. */
import { storedFields, type Resource } from './define.ts';
import type { Problem } from './problems.ts';

/** The name Python gives the type of a JSON value, as DRF's messages show it. */
function pythonType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return { string: 'str', boolean: 'bool', object: 'dict' }[typeof value as string] ?? 'str';
}
const shown = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value));
const codePoint = (point: number): string => `U+${point.toString(16).toUpperCase().padStart(4, '0')}`;
const article = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** Reads after the field name: "currency 'XXX' is not a currency code". */
export function importText(problem: Problem): string {
  switch (problem.code) {
    case 'required': return 'is required';
    case 'null': return 'may not be null';
    case 'blank': return 'may not be blank';
    case 'max_length': return `has ${problem.length} characters, at most ${problem.max} are allowed`;
    case 'not_integer': case 'not_pk': return `${shown(problem.value)} is not an integer`;
    case 'not_number': return `${shown(problem.value)} is not a number`;
    case 'not_string': return `${shown(problem.value)} is not a string`;
    case 'not_boolean': return `${shown(problem.value)} is not a boolean`;
    case 'invalid_date': return `${shown(problem.value)} is not a date (YYYY-MM-DD)`;
    case 'invalid_datetime': return `${shown(problem.value)} is not an ISO 8601 timestamp with a UTC offset`;
    case 'invalid_url': return `${shown(problem.value)} is not a valid URL`;
    case 'invalid_email': return `${shown(problem.value)} is not a valid e-mail address`;
    case 'invalid_choice': return `${shown(problem.value)} is not one of ${problem.choices.map(shown).join(', ')}`;
    case 'invalid_code': return `${shown(problem.value)} is not ${article(problem.list.replace(/_/g, ' '))} code`;
    case 'decimal_places': return `${problem.value} has more than ${problem.decimals} decimal places`;
    case 'whole_digits': return `${problem.value} has more than ${problem.digits} digits before the decimal point`;
    case 'min_value': return `${problem.value} is less than ${problem.limit}`;
    case 'max_value': return `${problem.value} is more than ${problem.limit}`;
    case 'does_not_exist': return `${shown(problem.value)} does not exist`;
    case 'unique': return `${shown(problem.value)} is already used by id ${problem.owner}`;
    case 'rule': return problem.text;
    case 'null_character': return 'holds a NUL character';
    case 'control_character': return `holds the control character ${codePoint(problem.point)}`;
    case 'surrogate': return `holds half of a surrogate pair (${codePoint(problem.point)})`;
    case 'json_depth': return `is nested more than ${problem.max} levels deep`;
    case 'not_list': return `${shown(problem.value)} is not a list`;
    case 'invalid_json': return `${shown(problem.value)} does not have the expected structure`;
    case 'xml_character': return `holds ${codePoint(problem.character.codePointAt(0) ?? 0)}, which XML cannot hold`;
    case 'max_digits': return `has more than ${problem.digits} digits`;
    case 'max_string_length': return 'is too long to be a number';
  }
}

/** Django's verbose names, as its unique message shows them: `report with this name already exists.` */
function uniqueText(resource: Resource, fieldName: string): string {
  const field = storedFields(resource).find(([name]) => name === fieldName)?.[1];
  const model = resource.verboseName ?? resource.name.replace(/_/g, ' ');
  return `${model} with this ${field?.verbose ?? fieldName.replace(/_/g, ' ')} already exists.`;
}

/** Django REST Framework's wording, which existing clients may show to people. */
export function apiText(problem: Problem, resource: Resource): string {
  switch (problem.code) {
    case 'required': return 'This field is required.';
    case 'null': return 'This field may not be null.';
    case 'blank': return 'This field may not be blank.';
    case 'max_length': return `Ensure this field has no more than ${problem.max} characters.`;
    case 'not_integer': return 'A valid integer is required.';
    case 'not_pk': return `Incorrect type. Expected pk value, received ${pythonType(problem.value)}.`;
    case 'not_number': return 'A valid number is required.';
    case 'not_string': return 'Not a valid string.';
    case 'not_boolean': return 'Must be a valid boolean.';
    // RSR's DATE_INPUT_FORMATS: ['iso-8601', '%d-%m-%Y'].
    case 'invalid_date': return 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD, DD-MM-YYYY.';
    case 'invalid_datetime': return 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';
    case 'invalid_url': return 'Enter a valid URL.';
    case 'invalid_email': return 'Enter a valid email address.';
    case 'invalid_choice': case 'invalid_code': return `"${String(problem.value)}" is not a valid choice.`;
    case 'decimal_places': return `Ensure that there are no more than ${problem.decimals} decimal places.`;
    case 'whole_digits': return `Ensure that there are no more than ${problem.digits} digits before the decimal point.`;
    case 'min_value': return `Ensure this value is greater than or equal to ${problem.limit}.`;
    case 'max_value': return `Ensure this value is less than or equal to ${problem.limit}.`;
    case 'does_not_exist': return `Invalid pk "${String(problem.value)}" - object does not exist.`;
    case 'unique': return uniqueText(resource, problem.field);
    case 'rule': return `${problem.text.charAt(0).toUpperCase()}${problem.text.slice(1)}.`;
    case 'null_character': return 'Null characters are not allowed.';
    case 'control_character': return `Control characters are not allowed: ${codePoint(problem.point)}.`;
    case 'surrogate': return `Surrogate characters are not allowed: ${codePoint(problem.point)}.`;
    case 'json_depth': return `Ensure this value is nested no more than ${problem.max} levels deep.`;
    case 'not_list': return `Expected a list of items but got type "${pythonType(problem.value)}".`;
    case 'invalid_json': return 'Value does not have the expected structure.';
    // RSR's ValidXMLCharField validator: the character itself, then its words.
    case 'xml_character': return `${problem.character} is not an allowed character`;
    case 'max_digits': return `Ensure that there are no more than ${problem.digits} digits in total.`;
    case 'max_string_length': return 'String value too large.';
  }
}
