import { Type } from '@sinclair/typebox';
import { budgetItemLabels, codeLabel } from '../codelists/index.ts';
import { pythonThousands } from '../text/python.ts';
import { one, periodOrder, code, date, decimal, derived, fk, id, int, text, type Related, type Row, ownedByProject, resource } from './define.ts';

/** resources.md: the label's text; without one, RSR's "No budget item specified" rendering. */
function labelText(row: Row, related: Related): string {
  if (row.label !== null) return budgetItemLabels.get(row.label) ?? String(row.label);
  const currency = row.currency || related.project?.currency || '';
  const amount = row.amount ? ` - ${pythonThousands(row.amount)} ${currency}` : ' - No amount specified';
  return `No budget item specified${amount}${row.type === '2' ? ' (Revised)' : ''}`;
}

const budgetItem = resource({
  name: 'budget_item',
  title: 'Budget Item',
  visibility: ownedByProject('project'),
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    // A foreign key to RSR's BudgetItemLabel table, which this service keeps as a code list.
    label: int({ null: true, choices: [...budgetItemLabels.keys()], pkChoices: true, index: 'filter' }),
    label_label: derived(Type.String(), (row, ctx, related) => labelText(row, related)),
    other_extra: text({ null: true, maxLength: 30, index: 'search' }),
    amount: decimal(14, 2, { null: true }),
    type: text({ choices: ['1', '2'] }),
    type_label: derived(Type.String(), (row) => codeLabel('budget_type', row.type)),
    currency: code('currency'),
    currency_label: derived(Type.String(), (row, ctx, related) => codeLabel('currency', row.currency || related.project?.currency)),
    status: text({ choices: ['1', '2'] }),
    status_label: derived(Type.String(), (row) => codeLabel('budget_status', row.status)),
    period_start: date({ null: true }),
    period_end: date({ null: true }),
    value_date: date({ null: true }),
  },
  checks: [periodOrder('period_start', 'period_end')],
  related: { project: one('project', 'project') },
});
export default budgetItem;
