import { Type } from '@sinclair/typebox';
import { codeLabel } from '../codelists/index.ts';
import { code, derived, fk, id, text, ownedByProject, resource } from './define.ts';

// Key order: what DRF's ModelSerializer(fields='__all__') gives RSR's serializer (resources.md).
const humanitarianScope = resource({
  name: 'humanitarian_scope',
  title: 'Humanitarian Scope',
  visibility: ownedByProject('project'),
  writers: { kind: 'admins' }, // resources.md
  fields: {
    id: id(),
    type_label: derived(Type.String(), (row) => codeLabel('humanitarian_scope_type', row.type)),
    vocabulary_label: derived(Type.String(), (row) => codeLabel('humanitarian_scope_vocabulary', row.vocabulary)),
    code: text({ maxLength: 25 }),
    type: code('humanitarian_scope_type'),
    vocabulary: code('humanitarian_scope_vocabulary'),
    vocabulary_uri: text({ maxLength: 1000 }),
    text: text({ maxLength: 1000 }),
    project: fk('project', { required: true }),
  },
});
export default humanitarianScope;
