import { asc, fk, id, text, url, type Resource } from './define.js';

const link: Resource = {
  name: 'link',
  table: 'link',
  title: 'Link',
  description: '',
  defaultOrder: [asc('id')],
  visibility: { kind: 'project', path: ['project'] },
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    kind: text({ choices: ['A', 'E'], default: 'E', blank: false }),
    url: url({ required: true, blank: false }),
    caption: text({ maxLength: 50 }),
  },
};
export default link;
