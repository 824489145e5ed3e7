/**
 * What can be wrong with a written or imported value, as data: import (one line naming file,
 * index, id and field) and the API (DRF's `{"field": ["message"]}`) word them each their own way
 * (messages.ts).
 */
export type Problem =
  | { field: string; code: 'required' | 'null' | 'blank' }
  | { field: string; code: 'max_length'; max: number; length: number }
  | { field: string; code: 'not_integer' | 'not_pk' | 'not_number' | 'not_string' | 'not_boolean' | 'invalid_date' | 'invalid_datetime' | 'invalid_url' | 'invalid_email'; value: unknown }
  | { field: string; code: 'invalid_choice'; value: unknown; choices: readonly (string | number)[] }
  | { field: string; code: 'invalid_code'; value: string; list: string }
  | { field: string; code: 'decimal_places'; value: number; decimals: number }
  | { field: string; code: 'whole_digits'; value: number; digits: number }
  | { field: string; code: 'min_value' | 'max_value'; value: number; limit: number }
  | { field: string; code: 'does_not_exist'; value: unknown }
  | { field: string; code: 'unique'; value: string; owner: number }
  /** A character no text may hold: NUL, another C0 control (not tab, LF, CR), or half a surrogate pair. */
  | { field: string; code: 'null_character' }
  | { field: string; code: 'control_character' | 'surrogate'; point: number }
  | { field: string; code: 'json_depth'; max: number }
  /** A JSON value of the wrong shape: not a list where one is declared, or not the declared shape. */
  | { field: string; code: 'not_list' | 'invalid_json'; value: unknown }
  /** A rule of its own (record checks, parse hooks): `text` reads after the field name. */
  | { field: string; code: 'rule'; text: string }
  /** DRF's wordings of what only writes through the API meet (written-values.ts). */
  | { field: string; code: 'xml_character'; character: string }
  | { field: string; code: 'max_digits'; digits: number }
  | { field: string; code: 'max_string_length' };

/** A problem before it is pinned to a field (Omit, distributed over the union). */
export type Check = (Problem extends infer P ? (P extends unknown ? Omit<P, 'field'> : never) : never) | null;
