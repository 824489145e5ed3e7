/**
 * The IATI code lists (and RSR's budget item labels), loaded once from the repository's copy of
 * shared/codelists (`npm run codelists:sync` refreshes it). Labels follow codelists/README.md:
 * empty code -> "", known code -> "C - name" (or the name alone), unknown code -> the bare code.
 */
import { existsSync, readFileSync } from 'node:fs';

export type CodelistName =
  | 'aid_type' | 'aid_type_vocabulary' | 'budget_status' | 'budget_type' | 'country' | 'currency'
  | 'disbursement_channel' | 'finance_type' | 'flow_type' | 'geographic_vocabulary'
  | 'humanitarian_scope_type' | 'humanitarian_scope_vocabulary' | 'language' | 'organisation_type'
  | 'region' | 'region_vocabulary' | 'sector' | 'sector_vocabulary' | 'tied_status'
  | 'transaction_type';

interface CodeRow { code: string; name: string }

/** The package's codelists/ folder, found upwards from here: src/codelists/ in a checkout, dist/src/codelists/ when built. */
function codelistDirectory(): URL {
  for (let up = new URL('./', import.meta.url); up.pathname !== '/'; up = new URL('../', up)) {
    const candidate = new URL('codelists/', up);
    if (existsSync(new URL('currency.json', candidate))) return candidate;
  }
  throw new Error('codelists/ not found above the service');
}

const directory = codelistDirectory();

/** One file of codelists/ (`currency.json`), parsed. */
export function readCodelistFile<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as T;
}

const lists = new Map<CodelistName, Map<string, string>>();
const codeOrder = new Map<CodelistName, string[]>();

function list(name: CodelistName): Map<string, string> {
  let names = lists.get(name);
  if (!names) {
    const rows = readCodelistFile<CodeRow[]>(`${name}.json`);
    names = new Map(rows.map((row) => [row.code, row.name]));
    lists.set(name, names);
    codeOrder.set(name, rows.map((row) => row.code));
  }
  return names;
}

/** `"C - name"`; `""` for an empty code; the bare code when the list does not know it. */
export function codeLabel(name: CodelistName, code: string | null | undefined): string {
  if (!code) return '';
  const text = list(name).get(code);
  return text === undefined ? code : `${code} - ${text}`;
}

/** The name alone (transaction currency_label); same rules for empty and unknown codes. */
export function codeName(name: CodelistName, code: string | null | undefined): string {
  if (!code) return '';
  return list(name).get(code) ?? code;
}

export function hasCode(name: CodelistName, code: string): boolean {
  return list(name).has(code);
}

export function codes(name: CodelistName): readonly string[] {
  list(name);
  return codeOrder.get(name) ?? [];
}

/** RSR's budget item labels: id -> text (not an IATI list, see codelists/README.md). */
export const budgetItemLabels: ReadonlyMap<number, string> = new Map(
  readCodelistFile<{ id: number; label: string }[]>('budget_item_label.json').map((row) => [row.id, row.label]),
);
