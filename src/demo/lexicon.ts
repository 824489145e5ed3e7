/**
 * Pools of names and addresses, built once per dataset with faker and then picked by the fast PRNG:
 * faker per record would be far too slow at scale 100 (millions of records).
 */
import { Faker, ar, base, de, el, en, es, fr, nl, pt_BR, ru, zh_CN, type LocaleDefinition } from '@faker-js/faker';
import { Rng, streamSeed } from './random.js';

export interface Person {
  first: string;
  last: string;
}

export interface Lexicon {
  people: Person[];
  companies: string[];
  streets: string[];
  secondaryAddresses: string[];
  postcodes: string[];
  states: string[];
}

/** Locales of the people in the demo and how many of each; a few write their names in other scripts. */
const PEOPLE_LOCALES: readonly [string, LocaleDefinition, number][] = [
  ['en', en, 900], ['es', es, 500], ['fr', fr, 400], ['nl', nl, 200], ['pt_BR', pt_BR, 150], ['de', de, 100],
  ['ru', ru, 40], ['ar', ar, 40], ['zh_CN', zh_CN, 30], ['el', el, 20],
];

const COMPANY_LOCALES: readonly [string, LocaleDefinition, number][] = [
  ['en', en, 300], ['es', es, 120], ['fr', fr, 120], ['nl', nl, 60], ['de', de, 40], ['pt_BR', pt_BR, 40],
  ['ru', ru, 8], ['zh_CN', zh_CN, 8],
];

const ADDRESS_LOCALES: readonly [string, LocaleDefinition][] = [['en', en], ['es', es], ['fr', fr], ['nl', nl]];

function fakerFor(seed: number, name: string, locale: LocaleDefinition): Faker {
  const faker = new Faker({ locale: [locale, en, base] });
  faker.seed(streamSeed(seed, `faker:${name}`));
  return faker;
}

function times<T>(count: number, make: () => T): T[] {
  return Array.from({ length: count }, make);
}

export function buildLexicon(seed: number): Lexicon {
  const people: Person[] = [];
  for (const [name, locale, count] of PEOPLE_LOCALES) {
    const faker = fakerFor(seed, `people:${name}`, locale);
    // Faker's first names may carry a second given name ("María Teresa"); keep them, they are real.
    people.push(...times(count, () => ({ first: faker.person.firstName(), last: faker.person.lastName() })));
  }
  const companies: string[] = [];
  for (const [name, locale, count] of COMPANY_LOCALES) {
    const faker = fakerFor(seed, `company:${name}`, locale);
    companies.push(...times(count, () => faker.company.name()).filter((company) => company.length <= 60));
  }
  const streets: string[] = [];
  const secondaryAddresses: string[] = [];
  const postcodes: string[] = [];
  const states: string[] = [];
  for (const [name, locale] of ADDRESS_LOCALES) {
    const faker = fakerFor(seed, `address:${name}`, locale);
    streets.push(...times(150, () => faker.location.streetAddress()));
    secondaryAddresses.push(...times(25, () => faker.location.secondaryAddress()));
    postcodes.push(...times(75, () => faker.location.zipCode()));
    states.push(...times(40, () => faker.location.state()));
  }
  // The pools are built locale by locale; shuffle so a uniform pick mixes them.
  const rng = new Rng(streamSeed(seed, 'lexicon'));
  shuffle(people, rng);
  for (const pool of [companies, streets, secondaryAddresses, postcodes, states]) shuffle(pool, rng);
  return { people, companies, streets, secondaryAddresses, postcodes, states };
}

function shuffle<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
}

/** Lower-case ASCII letters and digits of a text, for slugs and e-mail addresses ('' for other scripts). */
export function asciiSlug(text: string, separator = ''): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[Øø]/g, 'o')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((part) => part !== '')
    .join(separator);
}
