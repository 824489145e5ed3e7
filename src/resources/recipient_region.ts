import { Type } from '@sinclair/typebox';
import { codeLabel } from '../codelists/index.ts';
import { code, decimal, derived, fk, id, text, ownedByProject, resource } from './define.ts';

const recipientRegion = resource({
  name: 'recipient_region',
  title: 'Recipient Region',
  visibility: ownedByProject('project'),
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    region: code('region', { maxLength: 25 }),
    region_label: derived(Type.String(), (row) => codeLabel('region', row.region)),
    text: text({ maxLength: 50, index: 'search' }),
    percentage: decimal(4, 1, { null: true, min: 0, max: 100 }),
    region_vocabulary: code('region_vocabulary'),
    vocabulary_label: derived(Type.String(), (row) => codeLabel('region_vocabulary', row.region_vocabulary)),
    region_vocabulary_uri: text({ maxLength: 1000 }),
  },
});
export default recipientRegion;
