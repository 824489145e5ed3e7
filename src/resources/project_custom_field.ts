import { bool, fk, id, int, json, text, ownedByProject, resource } from './define.ts';

const projectCustomField = resource({
  name: 'project_custom_field',
  title: 'Project Custom Field',
  visibility: ownedByProject('project'),
  fields: {
    id: id(),
    project: fk('project', { required: true }),
    name: text({ required: true, blank: false, maxLength: 255, index: 'search' }),
    // RSR: section an IntegerField with the ten admin sections as choices, order a PositiveSmallIntegerField.
    section: int({ required: true, choices: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }),
    order: int({ required: true, min: 0, max: 32767 }),
    type: text({ choices: ['text', 'boolean', 'dropdown'], default: 'text', blank: false }),
    max_characters: int({ null: true }),
    help_text: text({ maxLength: 1000 }),
    value: text({ index: 'search' }),
    mandatory: bool({ default: false }),
    dropdown_options: json(undefined, { null: true }),
    dropdown_selection: json(undefined, { null: true }),
  },
  checks: [
    (record) =>
      record.max_characters > 0 && typeof record.value === 'string' && [...record.value].length > record.max_characters
        ? { field: 'value', message: `has more than max_characters (${record.max_characters}) characters` }
        : null,
  ],
});
export default projectCustomField;
