import { fk, id, text, url, ownedByProject, resource } from './define.ts';

const link = resource({
  name: 'link',
  title: 'Link',
  visibility: ownedByProject('project'),
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    kind: text({ choices: ['A', 'E'], default: 'E', blank: false }),
    url: url({ required: true, blank: false, index: 'search' }),
    caption: text({ maxLength: 50, index: 'search' }),
  },
});
export default link;
