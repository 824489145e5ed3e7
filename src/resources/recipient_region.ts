import { Type } from '@sinclair/typebox';
import { codeLabel } from '../codelists/index.js';
import { asc, code, decimal, derived, fk, id, text, type Resource } from './define.js';

const recipientRegion: Resource = {
  name: 'recipient_region',
  table: 'recipient_region',
  title: 'Recipient Region',
  description: '',
  defaultOrder: [asc('id')],
  visibility: { kind: 'project', path: ['project'] },
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    region: code('region', { maxLength: 25 }),
    region_label: derived(Type.String(), (row) => codeLabel('region', row.region)),
    text: text({ maxLength: 50 }),
    percentage: decimal(4, 1, { null: true, min: 0, max: 100 }),
    region_vocabulary: code('region_vocabulary'),
    vocabulary_label: derived(Type.String(), (row) => codeLabel('region_vocabulary', row.region_vocabulary)),
    region_vocabulary_uri: text({ maxLength: 1000 }),
  },
};
export default recipientRegion;
