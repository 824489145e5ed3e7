import { Type } from '@sinclair/typebox';
import { codeLabel, codeName, type CodelistName } from '../codelists/index.ts';
import { escapeHtml } from '../text/python.ts';
import {
  one, bool, code, date, decimal, derived, fk, id, json, text,
  ownedByProject, resource, type DerivedField, type Row,
} from './define.ts';

/** `<a href="/en/organisation/{id}/">{long_name, else name}</a>`, escaped (D15); "" for none. */
function showLink(organisation: Row | null): string {
  if (!organisation) return '';
  const name = organisation.long_name || organisation.name;
  return `<a href="/en/organisation/${organisation.id}/">${escapeHtml(name)}</a>`;
}

const label = (list: CodelistName, field: string): DerivedField =>
  derived(Type.String(), (row) => codeLabel(list, row[field]));

/** IATI 1.x transaction types, still found in old records (the seed shows "D"): imported, never written. */
const LEGACY_TRANSACTION_TYPES = ['C', 'CG', 'D', 'E', 'IF', 'IR', 'LR', 'QP', 'QS', 'R'];

const transaction = resource({
  name: 'transaction',
  title: 'Transaction',
  description: 'Transaction resource.',
  visibility: ownedByProject('project'),
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    reference: text({ maxLength: 25, index: 'search' }),
    description: text({ maxLength: 255, index: 'search' }),
    transaction_date: date({ null: true }),
    transaction_type: code('transaction_type', { maxLength: 2, legacy: LEGACY_TRANSACTION_TYPES }),
    transaction_type_label: label('transaction_type', 'transaction_type'),
    value: decimal(14, 2, { null: true }),
    value_date: date({ null: true }),
    currency: code('currency'),
    currency_label: derived(Type.String(), (row, ctx, related) => codeName('currency', row.currency || related.project?.currency)),
    provider_organisation: fk('organisation', { null: true }),
    provider_organisation_show_link: derived(Type.String(), (row, ctx, related) => showLink(related.provider)),
    provider_organisation_activity: text({ maxLength: 100 }),
    receiver_organisation: fk('organisation', { null: true }),
    receiver_organisation_show_link: derived(Type.String(), (row, ctx, related) => showLink(related.receiver)),
    receiver_organisation_activity: text({ maxLength: 100 }),
    aid_type_vocabulary: code('aid_type_vocabulary', { default: '1' }),
    aid_type: code('aid_type'),
    aid_type_label: label('aid_type', 'aid_type'),
    disbursement_channel: code('disbursement_channel'),
    disbursement_channel_label: label('disbursement_channel', 'disbursement_channel'),
    finance_type: code('finance_type'),
    finance_type_label: label('finance_type', 'finance_type'),
    flow_type: code('flow_type'),
    flow_type_label: label('flow_type', 'flow_type'),
    tied_status: code('tied_status'),
    tied_status_label: label('tied_status', 'tied_status'),
    recipient_country: code('country'),
    recipient_country_label: label('country', 'recipient_country'),
    recipient_region: code('region', { maxLength: 25 }),
    recipient_region_label: label('region', 'recipient_region'),
    recipient_region_vocabulary: code('region_vocabulary'),
    recipient_region_vocabulary_label: label('region_vocabulary', 'recipient_region_vocabulary'),
    recipient_region_vocabulary_uri: text({ maxLength: 1000 }),
    sectors: json(Type.Array(Type.Unknown()), { default: [] }),
    humanitarian: bool({ null: true }),
  },
  related: {
    project: one('project', 'project'),
    provider: one('provider_organisation', 'organisation'),
    receiver: one('receiver_organisation', 'organisation'),
  },
});
export default transaction;
