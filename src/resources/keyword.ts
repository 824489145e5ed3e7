import { asc, id, text, url, resource } from './define.ts';

const keyword = resource({
  name: 'keyword',
  title: 'Keyword',
  defaultOrder: [asc('label')],
  visibility: { kind: 'public' },
  fields: {
    id: id(),
    label: text({ required: true, blank: false, maxLength: 100, unique: 'ci' }),
    logo: url({ null: true, maxLength: 255 }),
  },
});
export default keyword;
