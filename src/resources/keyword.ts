import { asc, id, text, url, type Resource } from './define.js';

const keyword: Resource = {
  name: 'keyword',
  table: 'keyword',
  title: 'Keyword',
  description: '',
  defaultOrder: [asc('label')],
  visibility: { kind: 'public' },
  fields: {
    id: id(),
    label: text({ required: true, blank: false, maxLength: 100, unique: 'ci' }),
    logo: url({ null: true, maxLength: 255 }),
  },
};
export default keyword;
