/** Project custom fields: the questions of an organisation's project form, answered per project. */
import { ids, projectWords, sentences, stream, type DemoContext } from './context.ts';
import { asciiSlug } from './lexicon.ts';
import { streamSeed, type Rng } from './random.ts';
import { split } from './split.ts';
import { THEMES } from './themes.ts';
import type { CustomFieldDef } from './words.ts';

type Row = Record<string, unknown>;

/** Cuts a text to at most `max` characters at a word boundary (max 0 or null: no limit). */
function limit(text: string, max: number | null): string {
  if (max === null || max <= 0 || text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > 0 ? cut.slice(0, space) : cut;
}

function options(def: CustomFieldDef): { label: string; value: string }[] | null {
  return def.options === undefined ? null : def.options.map((label) => ({ label, value: asciiSlug(label, '-') }));
}

export function* projectCustomFields(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'project_custom_field');
  const { plan } = ctx;
  const wordsOf = projectWords(ctx);
  const children = split({
    parents: () => ids(plan.projects),
    total: ctx.sizes.project_custom_field,
    seed: streamSeed(ctx.seed, 'split:project_custom_field'),
    // A project answers (part of) its organisation's form, in the form's order.
    weight: (project) => (plan.form[project] < 0 ? 0 : plan.forms[plan.form[project]].length),
    capped: true,
  });
  for (const { id, parent: project, index } of children) {
    const field = plan.forms[plan.form[project]][index];
    const choices = options(field);
    let value = '';
    if (field.type === 'boolean') value = rng.chance(0.6) ? 'True' : 'False';
    else if (field.type === 'text' && rng.chance(0.7)) value = limit(answer(field, ctx, project, wordsOf, rng), field.maxCharacters);
    yield {
      id,
      project,
      name: field.name,
      section: field.section,
      order: field.order,
      type: field.type,
      max_characters: field.maxCharacters,
      help_text: field.helpText,
      value,
      mandatory: field.mandatory,
      dropdown_options: choices,
      dropdown_selection: choices !== null && rng.chance(0.7) ? rng.pick(choices) : null,
    };
  }
}

function answer(field: CustomFieldDef, ctx: DemoContext, project: number, wordsOf: ReturnType<typeof projectWords>, rng: Rng): string {
  const words = wordsOf(project);
  if (field.name === 'Internal project code') return `PRJ-${words.firstYear}-${String(project).padStart(5, '0')}`;
  if (field.name === 'Contact in the field') {
    const person = rng.pick(ctx.lexicon.people);
    return `${person.first} ${person.last}, ${words.placeName}`;
  }
  return sentences(THEMES[ctx.plan.theme[project]], words, rng, 1, 4);
}
