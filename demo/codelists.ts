/** The code lists the demo draws codes from: the service's copy of shared/codelists. */
import { readCodelistFile } from '../src/codelists/index.ts';

export interface CodeRow {
  code: string;
  name: string;
}

const read = <T>(file: string): T => readCodelistFile<T>(`${file}.json`);

export interface DemoCodelists {
  /** In file order: an organisation location's `country` is the 1-based position in this list. */
  country: CodeRow[];
  currency: CodeRow[];
  region: CodeRow[];
  aidType: string[];
  disbursementChannel: string[];
  financeType: string[];
  flowType: string[];
  tiedStatus: string[];
  transactionType: string[];
  organisationType: number[];
  budgetItemLabel: number[];
}

let loaded: DemoCodelists | undefined;

export function demoCodelists(): DemoCodelists {
  if (loaded) return loaded;
  const codes = (file: string): string[] => read<CodeRow[]>(file).map((row) => row.code);
  loaded = {
    country: read<CodeRow[]>('country'),
    currency: read<CodeRow[]>('currency'),
    region: read<CodeRow[]>('region'),
    aidType: codes('aid_type'),
    disbursementChannel: codes('disbursement_channel'),
    financeType: codes('finance_type'),
    flowType: codes('flow_type'),
    tiedStatus: codes('tied_status'),
    transactionType: codes('transaction_type'),
    organisationType: codes('organisation_type').map(Number),
    budgetItemLabel: read<{ id: number }[]>('budget_item_label').map((row) => row.id),
  };
  return loaded;
}
