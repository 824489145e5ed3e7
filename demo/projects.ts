/** Projects and what hangs directly off them: programs, partners, links, keywords, updates, scopes. */
import { fill, ids, projectWords, sentences, stream, type DemoContext, type ProjectWords } from './context.ts';
import { asciiSlug } from './lexicon.ts';
import { MAX_PARTNERS, PROJECT_CURRENCIES } from './plan.ts';
import { streamSeed, Weighted, type Rng } from './random.ts';
import { split } from './split.ts';
import { THEMES, type Theme } from './themes.ts';
import { dateText, officeMoment, pastDay, timestampText, TODAY } from './calendar.ts';
import { AKVOPEDIA_TOPICS, HUMANITARIAN_SCOPES, KEYWORDS, LINK_CAPTIONS, UPDATE_TITLES, type LinkKind } from './words.ts';

type Row = Record<string, unknown>;

function title(theme: Theme, language: number, words: ProjectWords, rng: Rng): string {
  const pool = language === 1 && rng.chance(0.7) ? theme.titlesEs : language === 2 && rng.chance(0.7) ? theme.titlesFr : theme.titles;
  const text = fill(rng.pick(pool), words, rng);
  return rng.chance(0.08) ? `${text}${rng.pick([' – Phase II', ' – Phase 2', ' (extension)', ' – pilot'])}` : text;
}

export function* projects(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'project');
  const { plan } = ctx;
  const wordsOf = projectWords(ctx);
  const programTitles = new Map(plan.programs.map((program) => [program.id, program.title]));
  for (let id = 1; id <= plan.projects; id++) {
    const theme = THEMES[plan.theme[id]];
    const words = wordsOf(id);
    const programTitle = programTitles.get(id);
    const start = plan.start[id];
    const end = plan.end[id];
    const planned = rng.chance(0.96);
    const actualStart = start <= TODAY && rng.chance(0.8) ? start + rng.between(-30, 90) : null;
    const actualEnd = actualStart !== null && end < TODAY && rng.chance(0.65) ? Math.max(actualStart, end + rng.between(-60, 120)) : null;
    yield {
      id,
      title: programTitle ?? title(theme, plan.language[id], words, rng),
      subtitle: rng.chance(0.65) ? fill(rng.pick(theme.results), words, rng) : '',
      // Program roots are the public face of a program; other projects are hidden now and then.
      is_public: programTitle !== undefined || rng.chance(0.92),
      publishing_status: programTitle !== undefined || rng.chance(0.92) ? 'published' : 'unpublished',
      currency: PROJECT_CURRENCIES[plan.currency[id]],
      date_start_planned: planned ? dateText(start) : null,
      date_end_planned: planned ? dateText(end) : null,
      date_start_actual: actualStart === null ? null : dateText(actualStart),
      date_end_actual: actualEnd === null ? null : dateText(actualEnd),
      parent: plan.parent[id] === 0 ? null : plan.parent[id],
    };
  }
}

export function* programs(ctx: DemoContext): Generator<Row> {
  for (const program of ctx.plan.programs) yield { id: program.id, title: program.title };
}

export function* partnerships(ctx: DemoContext): Generator<Row> {
  const { plan } = ctx;
  let id = 0;
  for (let project = 1; project <= plan.projects; project++) {
    for (let k = 0; k < plan.partnerCount[project]; k++) {
      const slot = project * MAX_PARTNERS + k;
      yield { id: ++id, project, organisation: plan.partners[slot], iati_organisation_role: plan.roles[slot] };
    }
  }
}

export function* keywords(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'keyword');
  const base = [...KEYWORDS];
  for (let i = base.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [base[i], base[j]] = [base[j], base[i]];
  }
  const countries = ctx.codes.country.map((row) => row.code);
  const seen = new Set<string>();
  for (let id = 1; id <= ctx.sizes.keyword; id++) {
    // Beyond the hand-written list, keywords name a theme in a country ("Cocoa Ghana"), as programs do.
    let label = id <= base.length ? base[id - 1] : '';
    for (let attempt = 0; label === '' || seen.has(label.toLowerCase()); attempt++) {
      const country = ctx.shortCountry(rng.pick(countries));
      label = attempt < 50 ? `${rng.pick(base)} ${country}` : `${rng.pick(base)} ${country} ${id}`;
      if (label.length > 100) label = '';
    }
    seen.add(label.toLowerCase());
    yield { id, label, logo: rng.chance(0.3) ? `https://rsr.akvo.org/media/db/keyword/${asciiSlug(label, '-') || id}.png` : null };
  }
}

export function* links(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'link');
  const wordsOf = projectWords(ctx);
  const children = split({
    parents: () => ids(ctx.plan.projects),
    total: ctx.sizes.link,
    seed: streamSeed(ctx.seed, 'split:link'),
    weight: (_, r) => (r.chance(0.15) ? 0 : r.between(1, 15)),
  });
  for (const { id, parent: project } of children) {
    if (rng.chance(0.15)) {
      const topic = rng.pick(AKVOPEDIA_TOPICS);
      const caption = rng.chance(0.8) ? `Akvopedia: ${topic.replace(/_/g, ' ')}` : '';
      yield { id, project, kind: 'A', url: `https://akvopedia.org/wiki/${topic}`, caption };
      continue;
    }
    const [caption, kind] = rng.pick(LINK_CAPTIONS);
    const slug = asciiSlug(`${wordsOf(project).placeName} ${caption || 'project'}`, '-');
    const url = externalUrl(kind, project, slug, rng);
    yield { id, project, kind: 'E', url, caption };
  }
}

function externalUrl(kind: LinkKind, project: number, slug: string, rng: Rng): string {
  switch (kind) {
    case 'website': return `https://www.example.org/projects/${project}/${slug}`;
    case 'document': return `https://www.example.org/documents/${slug}-${rng.between(2010, 2024)}.pdf`;
    case 'photos': return `https://www.flickr.com/photos/akvo/albums/${rng.between(10_000_000, 99_999_999)}`;
    case 'video': return `https://www.youtube.com/watch?v=${token(rng, 11)}`;
    case 'news': return `https://akvo.org/blog/${slug}/`;
    case 'dashboard': return `https://dashboards.example.org/${slug}`;
  }
}

const TOKEN_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';

function token(rng: Rng, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += TOKEN_CHARACTERS[rng.int(TOKEN_CHARACTERS.length)];
  return text;
}

export function* projectUpdates(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'project_update');
  const { plan } = ctx;
  const wordsOf = projectWords(ctx);
  const children = split({
    parents: () => ids(plan.projects),
    total: ctx.sizes.project_update,
    seed: streamSeed(ctx.seed, 'split:project_update'),
    // Projects that have not started yet have nothing to tell.
    weight: (project, r) => (plan.start[project] > TODAY || r.chance(0.2) ? 0 : 1 + r.skewed(14, 2)),
  });
  for (const { id, parent: project } of children) {
    const words = wordsOf(project);
    const day = pastDay(rng, plan.start[project], plan.end[project]);
    const created = officeMoment(Math.min(TODAY, day + rng.between(0, 14)), rng.float());
    yield {
      id,
      project,
      user: 1 + rng.int(plan.users),
      title: fill(rng.pick(UPDATE_TITLES), words, rng).slice(0, 80),
      text: sentences(THEMES[plan.theme[project]], words, rng, 1, 5),
      event_date: rng.chance(0.7) ? dateText(day) : null,
      created_at: timestampText(created, rng.between(1, 999999)),
    };
  }
}

const SCOPE_VOCABULARIES = new Weighted<string>([['1-2', 45], ['2-1', 30], ['99', 15], ['', 10]]);

export function* humanitarianScopes(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'humanitarian_scope');
  const { plan } = ctx;
  const children = split({
    parents: () => ids(plan.projects),
    total: ctx.sizes.humanitarian_scope,
    seed: streamSeed(ctx.seed, 'split:humanitarian_scope'),
    weight: (project, r) => (r.chance(THEMES[plan.theme[project]].humanitarian ? 0.25 : 0.003) ? r.between(1, 2) : 0),
    capped: true,
    fallback: (_, r) => r.between(1, 2),
  });
  for (const { id, parent: project } of children) {
    const scope = rng.pick(HUMANITARIAN_SCOPES);
    const vocabulary = SCOPE_VOCABULARIES.pick(rng);
    // A GLIDE number (1-2), an appeal code (2-1), the reporting organisation's own code (99), or none.
    let code = '';
    let uri = '';
    if (vocabulary === '1-2') {
      code = scope.glide;
      if (rng.chance(0.4)) uri = 'https://glidenumber.net/glide/public/search/search.jsp';
    } else if (vocabulary === '2-1') {
      code = scope.appeal;
    } else if (vocabulary === '99') {
      code = `EMG-${rng.between(2010, 2024)}-${rng.between(1, 40)}`;
      uri = 'https://www.example.org/emergencies';
    }
    yield {
      id,
      project,
      code,
      type: vocabulary === '2-1' ? '2' : vocabulary === '' ? rng.pick(['', '1']) : '1',
      vocabulary,
      vocabulary_uri: uri,
      text: scope.text,
    };
  }
}
