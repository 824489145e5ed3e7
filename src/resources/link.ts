import { fk, id, text, url, ownedByProject, resource } from './define.ts';

const link = resource({
  name: 'link',
  title: 'Link',
  visibility: ownedByProject('project'),
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    kind: text({ choices: ['A', 'E'], default: 'E', blank: false }),
    url: url({ required: true, blank: false }),
    caption: text({ maxLength: 50 }),
  },
});
export default link;
