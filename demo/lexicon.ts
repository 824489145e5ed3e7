/**
 * Pools of names and addresses, built once per dataset with faker and then picked by the fast PRNG:
 * faker per record would be far too slow at scale 100 (millions of records).
 */
import { Faker, ar, base, de, el, en, es, fr, nl, pt_BR, ru, zh_CN, type LocaleDefinition } from '@faker-js/faker';
import { Rng, streamSeed } from './random.ts';

export interface Person {
  first: string;
  last: string;
}

export interface Addresses {
  streets: string[];
  secondary: string[];
  postcodes: string[];
}

export type AddressLanguage = 'en' | 'es' | 'fr' | 'nl';

export interface Lexicon {
  people: Person[];
  companies: string[];
  /** Real Spanish and French towns (faker's lists for those locales are real places). */
  towns: string[];
  /** Street addresses as written in each language (a Dutch address in Amsterdam, a French one in Dakar). */
  addresses: Record<AddressLanguage, Addresses>;
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
  const rng = new Rng(streamSeed(seed, 'lexicon'));
  // The pools are built locale by locale; shuffle so a uniform pick mixes them.
  shuffle(people, rng);
  shuffle(companies, rng);
  const addresses = (name: AddressLanguage, locale: LocaleDefinition): Addresses => {
    const faker = fakerFor(seed, `address:${name}`, locale);
    return {
      streets: times(150, () => faker.location.streetAddress()),
      secondary: times(25, () => faker.location.secondaryAddress()),
      postcodes: times(75, () => faker.location.zipCode()),
    };
  };
  const towns = [es, fr].flatMap((locale, i) => {
    const faker = fakerFor(seed, `towns:${i}`, locale);
    return [...new Set(times(400, () => faker.location.city()))].sort();
  });
  return {
    people,
    companies,
    towns,
    addresses: { en: addresses('en', en), es: addresses('es', es), fr: addresses('fr', fr), nl: addresses('nl', nl) },
  };
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
