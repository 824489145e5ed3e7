/** What every entity generator of one dataset shares: the seed, sizes, plan, pools and code lists. */
import { demoCodelists, type DemoCodelists } from './codelists.ts';
import { buildLexicon, type Lexicon } from './lexicon.ts';
import { FIELD_PLACES, shortCountryName, type Place } from './places.ts';
import { buildPlan, sizesFor, type Plan, type Sizes } from './plan.ts';
import { Rng, streamSeed, unit } from './random.ts';
import { COMMON_SENTENCES, CROPS, CROPS_ES, CROPS_FR, GROUPS, type Theme } from './themes.ts';
import { yearOf } from './calendar.ts';

export interface DemoContext {
  seed: number;
  sizes: Sizes;
  plan: Plan;
  lexicon: Lexicon;
  codes: DemoCodelists;
  /** 1-based position of each country code in country.json (organisation locations store it). */
  countryPosition: ReadonlyMap<string, number>;
  shortCountry: (code: string) => string;
  /** Weight sums of the splits, so entities that repeat a walk do the first pass only once. */
  memo: Map<string, number>;
}

export function createContext(scale: number, seed: number): DemoContext {
  const codes = demoCodelists();
  const names = new Map(codes.country.map((row) => [row.code, row.name]));
  const shortCountry = (code: string): string => shortCountryName(code, names.get(code) ?? code);
  const sizes = sizesFor(scale);
  return {
    seed,
    sizes,
    plan: buildPlan(seed, sizes, shortCountry),
    lexicon: buildLexicon(seed),
    codes,
    countryPosition: new Map(codes.country.map((row, i) => [row.code, i + 1])),
    shortCountry,
    memo: new Map(),
  };
}

/** A fresh PRNG for the records of one entity (or any other named stream). */
export function stream(ctx: DemoContext, name: string): Rng {
  return new Rng(streamSeed(ctx.seed, name));
}

/**
 * Stateless facts about records: `facts(ctx, 'period-without-dates')(id)` is a number in [0, 1) that
 * every generator gets alike, for what several entities must agree on without storing it.
 */
export function facts(ctx: DemoContext, name: string): (id: number) => number {
  const seed = streamSeed(ctx.seed, name);
  return (id) => unit(seed, id);
}

/** The words a project's texts are filled with. */
export interface ProjectWords {
  place: Place;
  placeName: string;
  country: string;
  crop: string;
  /** The same crop in the project's language, for Spanish and French titles. */
  cropLocal: string;
  firstYear: number;
  lastYear: number;
  /** Sentences any project in this project's language could use (English plus its own language). */
  common: readonly string[];
}

const [ENGLISH, SPANISH, FRENCH] = COMMON_SENTENCES;
const COMMON_BY_LANGUAGE = [ENGLISH, [...ENGLISH, ...SPANISH], [...ENGLISH, ...FRENCH]];

/** Words of a project, remembering the last one: generators visit projects in order. */
export function projectWords(ctx: DemoContext): (project: number) => ProjectWords {
  let last = 0;
  let words: ProjectWords | undefined;
  const cropSeed = streamSeed(ctx.seed, 'crop');
  return (project) => {
    if (words !== undefined && project === last) return words;
    const { plan } = ctx;
    const place = FIELD_PLACES[plan.place[project]];
    const localCrops = [CROPS, CROPS_ES, CROPS_FR][plan.language[project]];
    const crop = unit(cropSeed, project);
    words = {
      place,
      placeName: place.name,
      country: ctx.shortCountry(place.country),
      crop: CROPS[Math.floor(crop * CROPS.length)],
      cropLocal: localCrops[Math.floor(crop * localCrops.length)],
      firstYear: yearOf(plan.start[project]),
      lastYear: yearOf(plan.end[project]),
      common: COMMON_BY_LANGUAGE[plan.language[project]],
    };
    last = project;
    return words;
  };
}

/** Fills {place}, {country}, {crop}, {crop_local}, {group}, {n} and {year} of a template. */
export function fill(template: string, words: ProjectWords, rng: Rng): string {
  if (!template.includes('{')) return template;
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    switch (key) {
      case 'place': return words.placeName;
      case 'country': return words.country;
      case 'crop': return words.crop;
      case 'crop_local': return words.cropLocal;
      case 'group': return rng.pick(GROUPS);
      case 'n': return String(rng.chance(0.5) ? rng.between(2, 60) : rng.between(10, 250) * 10);
      case 'year': return String(rng.between(words.firstYear, Math.max(words.firstYear, words.lastYear)));
      default: return key;
    }
  });
}

/** A few sentences of a project's theme, as a description or an update's text. */
export function sentences(theme: Theme, words: ProjectWords, rng: Rng, min: number, max: number): string {
  const count = rng.between(min, max);
  const chosen: string[] = [];
  // A few draws may repeat a sentence; skipping repeats is enough, the count need not be exact.
  for (let i = 0; i < count; i++) {
    const sentence = rng.chance(0.7) ? rng.pick(theme.sentences) : rng.pick(words.common);
    if (!chosen.includes(sentence)) chosen.push(sentence);
  }
  const text = chosen.map((sentence) => fill(sentence, words, rng));
  return text.join(text.length > 2 && rng.chance(0.3) ? '\n\n' : ' ');
}

/** Ids 1..count, for splits whose parents are plain ids. */
export function* ids(count: number): Generator<number> {
  for (let id = 1; id <= count; id++) yield id;
}
