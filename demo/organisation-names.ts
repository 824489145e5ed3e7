/**
 * Organisation names: a long name from patterns by kind of organisation, and a short name (at most
 * 40 characters: the long name, its initials or its first words), both unique ignoring case.
 */
import type { DemoContext } from './context.ts';
import type { Person } from './lexicon.ts';
import { languageOfCountry, type Place } from './places.ts';
import type { Rng } from './random.ts';
import { CROPS, CROPS_ES } from './themes.ts';
import { MINOR_WORDS, NAME_WORDS, ORGANISATION_PATTERNS } from './words.ts';

export type Kind = keyof typeof ORGANISATION_PATTERNS;

/** Upper-case initials of the significant words: 'Friends of Kisumu' → 'FK'. */
export function acronym(name: string): string {
  return name
    .split(/[\s,’']+/)
    .filter((word) => word !== '' && !MINOR_WORDS.has(word.toLowerCase()))
    .map((word) => word[0].toUpperCase())
    .join('');
}

/** A name of at most 40 characters for a long name: the name itself, an acronym or its first words. */
function shortName(long: string, kind: Kind, rng: Rng): string {
  if (long.length <= 40 && rng.chance(0.75)) return long;
  if (kind !== 'company') {
    const initials = acronym(long);
    if (initials.length >= 2 && initials.length <= 8) return initials;
  }
  if (long.length <= 40) return long;
  let short = '';
  for (const word of long.split(' ')) {
    if (short.length + word.length + 1 > 40) break;
    short = short === '' ? word : `${short} ${word}`;
  }
  return short.replace(/[,;:–-]+$/, '');
}

export class NameMaker {
  private readonly names = new Set<string>();
  private readonly longNames = new Set<string>();

  private readonly ctx: DemoContext;

  constructor(ctx: DemoContext) {
    this.ctx = ctx;
  }

  /** A name and long name, each unique ignoring case among the organisations made so far. */
  make(id: number, kind: Kind, place: Place, person: Person, rng: Rng): [string, string] {
    for (let attempt = 0; attempt < 24; attempt++) {
      let long = this.longName(kind, place, rng);
      // The patterns run out at large scales: then it is a local branch of a known organisation.
      if (attempt >= 8) long = branch(long, kind, rng.pick(this.ctx.lexicon.towns));
      if (long.length > 100 || this.longNames.has(long.toLowerCase())) continue;
      let name = shortName(long, kind, rng);
      if (this.names.has(name.toLowerCase())) name = `${name} ${place.name}`;
      if (name.length > 40 || this.names.has(name.toLowerCase())) continue;
      return this.keep(name, long);
    }
    // Practically unreachable; the id makes it unique.
    return this.keep(`${person.last.slice(0, 25)} Fdn ${id}`, `${person.last} Foundation ${id}`);
  }

  private keep(name: string, long: string): [string, string] {
    this.names.add(name.toLowerCase());
    this.longNames.add(long.toLowerCase());
    return [name, long];
  }

  private longName(kind: Kind, place: Place, rng: Rng): string {
    const { lexicon } = this.ctx;
    const patterns = ORGANISATION_PATTERNS[kind];
    // Names in Spanish, French or Dutch belong where those languages are spoken (mostly).
    let pattern = rng.pick(patterns);
    for (let tries = 0; tries < 5 && !fitsPlace(pattern, place, rng); tries++) pattern = rng.pick(patterns);
    return pattern.replace(/\{(\w+)\}/g, (_, key: string) => {
      switch (key) {
        case 'surname': return rng.pick(lexicon.people).last;
        case 'place': return place.name;
        case 'country': return this.ctx.shortCountry(place.country);
        case 'crop': return capitalise(rng.pick(CROPS));
        case 'crop_es': return capitalise(rng.pick(CROPS_ES));
        case 'company': return rng.pick(lexicon.companies);
        case 'word': return rng.pick(NAME_WORDS);
        default: return key;
      }
    });
  }
}

const PATTERN_LANGUAGES: readonly [RegExp, string][] = [
  [/^(Fundación|Asociación|Red de|Municipalidad|Alcaldía|Universidad)/, 'es'],
  [/^(Association|Groupement|Union des|Eau Vive|Réseau|Commune|Ministère|Université|Institut|Société|Fondation)/, 'fr'],
  [/^Stichting/, 'nl'],
];

function fitsPlace(pattern: string, place: Place, rng: Rng): boolean {
  const language = PATTERN_LANGUAGES.find(([start]) => start.test(pattern))?.[1];
  return language === undefined || language === languageOfCountry(place.country) || rng.chance(0.03);
}

function branch(long: string, kind: Kind, town: string): string {
  switch (kind) {
    case 'ngo': return `${long} – ${town} chapter`;
    case 'government': return `${long}, ${town} office`;
    case 'company': return `${long} (${town})`;
    case 'academic': return `${long}, ${town} campus`;
  }
}

function capitalise(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}
