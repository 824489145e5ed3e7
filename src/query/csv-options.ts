/**
 * How a CSV answer is written for spreadsheets: `bom=true` starts it with a UTF-8 byte order mark
 * (Excel on Windows reads a file without one as the machine's code page, mangling "Côte d'Ivoire"),
 * `delimiter=;` separates cells with semicolons (Excel in locales whose decimal mark is a comma
 * reads a comma-separated file into one column). Neither given, the bytes are the original's.
 */
import { lastValue, type QueryPairs } from './params.ts';

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvOptions {
  bom: boolean;
  delimiter: CsvDelimiter;
}

export const PLAIN_CSV: CsvOptions = { bom: false, delimiter: ',' };

export class CsvOptionError extends Error {}

const BOOLEANS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };
/** `tab` stands for a tab, which a URL carries only escaped (`%09`). */
const DELIMITERS: Record<string, CsvDelimiter> = { ',': ',', ';': ';', tab: '\t', '\t': '\t' };

/** The options of the query string; a value that is not one of them is refused with its name. */
export function parseCsvOptions(pairs: QueryPairs): CsvOptions {
  const bom = lastValue(pairs, 'bom');
  const delimiter = lastValue(pairs, 'delimiter');
  if (bom !== undefined && !Object.hasOwn(BOOLEANS, bom)) throw new CsvOptionError(`bom must be true or false, not '${bom}'.`);
  if (delimiter !== undefined && !Object.hasOwn(DELIMITERS, delimiter)) throw new CsvOptionError(`delimiter must be ',', ';' or 'tab', not '${delimiter}'.`);
  return { bom: bom === undefined ? false : BOOLEANS[bom], delimiter: delimiter === undefined ? ',' : DELIMITERS[delimiter] };
}
