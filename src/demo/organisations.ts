/** Organisations (with their locations), users and employments. */
import { stream, type DemoContext } from './context.js';
import { asciiSlug, type Person } from './lexicon.js';
import { DONOR_PLACES, FIELD_PLACES, type Place } from './places.js';
import { PROJECT_CURRENCIES } from './plan.js';
import { Weighted, type Rng } from './random.js';
import { CROPS, GROUPS } from './themes.js';
import { dayOf, officeMoment, timestampText, TODAY, DAY_SECONDS } from './time.js';
import { MINOR_WORDS, NAME_WORDS, ORGANISATION_PATTERNS } from './words.js';

type Row = Record<string, unknown>;
type Kind = keyof typeof ORGANISATION_PATTERNS;

/** organisation_type letter, the kind of name it gets, and the IATI OrganisationType codes that fit. */
const TYPES = new Weighted<[string | null, Kind, number[]]>([
  [['N', 'ngo', [21, 22, 23, 24]], 50],
  [['G', 'government', [10, 11, 15, 40]], 14],
  [['C', 'company', [70, 71, 72, 73, 30]], 16],
  [['K', 'academic', [80]], 8],
  [[null, 'ngo', [22, 60, 90]], 12],
]);

const DIAL_CODES: Readonly<Record<string, string>> = {
  KE: '254', UG: '256', TZ: '255', ET: '251', RW: '250', MW: '265', ZM: '260', MZ: '258', BF: '226', ML: '223',
  SN: '221', GH: '233', CI: '225', NG: '234', BJ: '229', CO: '57', PE: '51', BO: '591', EC: '593', HN: '504',
  NI: '505', GT: '502', NP: '977', BD: '880', VN: '84', KH: '855', ID: '62', NL: '31', GB: '44', BE: '32',
  FR: '33', CH: '41', SE: '46', DK: '45', DE: '49', ES: '34', US: '1', CA: '1',
};

const ORGANISATION_SENTENCES = [
  '{name} is a non-profit organisation based in {place}.',
  'Founded in {year}, we work with {group} in {country} and the wider region.',
  'Our mission is to improve access to basic services for {group}.',
  'We believe that lasting change starts with local ownership.',
  'The organisation works in {n} districts together with local authorities and community groups.',
  'Nous accompagnons les communautés rurales dans la gestion de leurs ressources.',
  'Trabajamos con organizaciones de base para fortalecer sus capacidades.',
];

const SPANISH_SPEAKING = new Set(['CO', 'PE', 'BO', 'EC', 'HN', 'NI', 'GT', 'SV', 'PY', 'ES']);
const FRENCH_SPEAKING = new Set(['SN', 'BF', 'ML', 'NE', 'CI', 'BJ', 'TG', 'CD', 'HT', 'MG', 'FR', 'BE', 'CH']);

/** The organisation's language ('en', 'es' or 'fr', the languages the service offers). */
function languageOf(country: string, rng: Rng): string {
  if (SPANISH_SPEAKING.has(country)) return rng.chance(0.8) ? 'es' : 'en';
  if (FRENCH_SPEAKING.has(country)) return rng.chance(0.7) ? 'fr' : 'en';
  return 'en';
}

function phone(country: string, rng: Rng): string {
  const dial = DIAL_CODES[country] ?? '31';
  return `+${dial} ${rng.between(10, 99)} ${rng.between(100, 999)} ${rng.between(1000, 9999)}`;
}

/** Upper-case initials of the significant words: 'Friends of Kisumu' → 'FK'. */
function acronym(name: string): string {
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

class NameMaker {
  private readonly names = new Set<string>();
  private readonly longNames = new Set<string>();

  constructor(private readonly ctx: DemoContext) {}

  /** A name and long name, each unique ignoring case among the organisations made so far. */
  make(id: number, kind: Kind, place: Place, person: Person, rng: Rng): [string, string] {
    for (let attempt = 0; attempt < 24; attempt++) {
      let long = this.longName(kind, place, rng);
      // Common patterns ("Ministry of Health, Kenya") recur at scale: set them apart by a place.
      if (attempt >= 12) long = `${long} ${rng.pick(FIELD_PLACES).name}`;
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
    return rng.pick(ORGANISATION_PATTERNS[kind]).replace(/\{(\w+)\}/g, (_, key: string) => {
      switch (key) {
        case 'surname': return rng.pick(lexicon.people).last;
        case 'place': return place.name;
        case 'country': return this.ctx.shortCountry(place.country);
        case 'crop': return capitalise(rng.pick(CROPS));
        case 'company': return rng.pick(lexicon.companies);
        case 'word': return rng.pick(NAME_WORDS);
        default: return key;
      }
    });
  }
}

function capitalise(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

/** Coordinates near a place, always with a fractional part (a whole number would read as an integer). */
export function near(value: number, spread: number, rng: Rng): number {
  const x = Math.round((value + (rng.float() * 2 - 1) * spread) * 10000) / 10000;
  return Number.isInteger(x) ? x + 0.0001 : x;
}

/** IATI organisation identifiers: registration agency prefix + number; the number is unique per id. */
function iatiOrgId(id: number, country: string, rng: Rng): string {
  const number = (id * 7919 + 1_000_003) % 100_000_000;
  switch (country) {
    case 'NL': return `NL-KVK-${String(number).padStart(8, '0')}`;
    case 'GB': return `GB-CHC-${String(number % 10_000_000).padStart(7, '0')}`;
    case 'US': return `US-EIN-${String(number).padStart(9, '0')}`;
    default: return rng.chance(0.1) ? `XM-DAC-${number}` : `${country}-COA-${number}`;
  }
}

export function* organisations(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'organisation');
  const { lexicon } = ctx;
  const names = new NameMaker(ctx);
  const count = ctx.sizes.organisation;
  const reporting = Math.max(1, Math.round(count * 0.1));
  const firstDay = dayOf(2008, 3, 1);
  let locationId = 0;
  for (let id = 1; id <= count; id++) {
    const [type, kind, newTypes] = TYPES.pick(rng);
    // The big reporting organisations sit where funders are; most partners where the work is.
    const place = rng.chance(id <= reporting ? 0.8 : 0.25) ? rng.pick(DONOR_PLACES) : rng.pick(FIELD_PLACES);
    const person = rng.pick(lexicon.people);
    const [name, longName] = names.make(id, kind, place, person, rng);
    const slug = (asciiSlug(name, '-') || `org-${id}`).slice(0, 30).replace(/-$/, '');
    const domain = `${slug.replace(/-/g, '')}.${place.donor && place.country === 'NL' ? 'nl' : 'org'}`;
    const contact = `${person.first} ${person.last}`;
    const contactLocal = asciiSlug(`${person.first.split(' ')[0]} ${person.last}`, '.');
    const email = `${rng.chance(0.5) && contactLocal !== '' ? contactLocal : 'info'}@${domain}`;
    // Organisations joined over the years, in id order roughly.
    const createdDay = Math.min(TODAY - 30, firstDay + Math.floor(((id - 1 + rng.float() * 20) / count) * (TODAY - firstDay)));
    const created = officeMoment(createdDay, rng.float());
    const modified = created + (rng.chance(0.2) ? 0 : rng.int((TODAY - createdDay) * DAY_SECONDS));
    const micros = rng.between(1, 999999);
    const locations = organisationLocations(ctx, id, place, rng, () => ++locationId);
    yield {
      id,
      name,
      long_name: longName,
      language: languageOf(place.country, rng),
      organisation_type: type,
      new_organisation_type: rng.pick(newTypes),
      currency: rng.chance(0.6) ? 'EUR' : rng.chance(0.75) ? 'USD' : rng.pick(PROJECT_CURRENCIES),
      iati_org_id: rng.chance(id <= reporting ? 0.9 : 0.4) ? iatiOrgId(id, place.country, rng) : null,
      url: rng.chance(0.75) ? `https://www.${domain}` : '',
      facebook: rng.chance(0.3) ? `https://www.facebook.com/${slug.replace(/-/g, '')}` : '',
      twitter: rng.chance(0.3) ? `https://twitter.com/${slug.replace(/-/g, '_').slice(0, 15)}` : '',
      linkedin: rng.chance(0.2) ? `https://www.linkedin.com/company/${slug}` : '',
      phone: rng.chance(0.6) ? phone(place.country, rng) : '',
      mobile: rng.chance(0.25) ? phone(place.country, rng) : '',
      fax: rng.chance(0.08) ? phone(place.country, rng) : '',
      contact_person: rng.chance(0.5) && contact.length <= 30 ? contact : '',
      contact_email: rng.chance(0.5) && email.length <= 50 ? email : '',
      description: rng.chance(0.75) ? organisationDescription(ctx, longName, place, rng) : '',
      notes: rng.chance(0.12) ? rng.pick(['Partner since the first phase.', 'Annual audit received.', 'Contact via the regional office.', 'Nuevo socio desde 2021.']) : '',
      logo: rng.chance(0.45) ? `https://rsr.akvo.org/media/db/org/${id}/${slug}-logo.png` : null,
      created_at: timestampText(created, micros),
      last_modified_at: timestampText(modified, modified > created ? rng.between(1, 999999) : micros),
      can_create_projects: rng.chance(id <= reporting ? 0.9 : 0.2),
      enforce_program_projects: rng.chance(0.05),
      use_project_roles: rng.chance(0.1),
      public_iati_file: rng.chance(0.85),
      enforce_2fa: rng.chance(0.05),
      can_become_reporting: rng.chance(id <= reporting ? 0.95 : 0.15),
      primary_location: locations.length > 0 ? locations[0].id : null,
      locations,
    };
  }
}

function organisationDescription(ctx: DemoContext, name: string, place: Place, rng: Rng): string {
  const count = rng.between(1, 4);
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) {
    sentences.push(rng.pick(ORGANISATION_SENTENCES).replace(/\{(\w+)\}/g, (_, key: string) => {
      switch (key) {
        case 'name': return name;
        case 'place': return place.name;
        case 'country': return ctx.shortCountry(place.country);
        case 'group': return rng.pick(GROUPS);
        case 'year': return String(rng.between(1965, 2015));
        case 'n': return String(rng.between(2, 30));
        default: return key;
      }
    }));
  }
  return sentences.join(rng.chance(0.3) ? '\n\n' : ' ');
}

interface OrganisationLocation {
  id: number;
  [field: string]: unknown;
}

function organisationLocations(ctx: DemoContext, organisation: number, place: Place, rng: Rng, nextId: () => number): OrganisationLocation[] {
  if (!rng.chance(0.7)) return [];
  const count = rng.chance(0.7) ? 1 : 2;
  const { lexicon } = ctx;
  const locations: OrganisationLocation[] = [];
  for (let k = 0; k < count; k++) {
    const where = k === 0 ? place : rng.pick(FIELD_PLACES);
    const iatiCountry = rng.chance(0.92) ? where.country : '';
    locations.push({
      id: nextId(),
      latitude: near(where.lat, 0.05, rng),
      longitude: near(where.lon, 0.05, rng),
      city: rng.chance(0.85) ? where.name : '',
      state: rng.chance(0.35) ? rng.pick(lexicon.states) : '',
      address_1: rng.chance(0.7) ? rng.pick(lexicon.streets) : '',
      address_2: rng.chance(0.15) ? rng.pick(lexicon.secondaryAddresses) : '',
      postcode: rng.chance(0.5) ? rng.pick(lexicon.postcodes) : '',
      iati_country: iatiCountry,
      country: iatiCountry === '' ? null : (ctx.countryPosition.get(iatiCountry) ?? null),
      location_target: organisation,
    });
  }
  return locations;
}

const MAIL_DOMAINS = ['example.org', 'example.com', 'example.net'];

export function* users(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'user');
  const emails = new Set<string>();
  for (let id = 1; id <= ctx.sizes.user; id++) {
    const person = rng.pick(ctx.lexicon.people);
    const local = asciiSlug(`${person.first.split(' ')[0]} ${person.last}`, '.') || `user${id}`;
    const domain = rng.pick(MAIL_DOMAINS);
    let email = `${local}@${domain}`;
    for (let n = 2; emails.has(email); n++) email = `${local}${n}@${domain}`;
    emails.add(email);
    yield {
      id,
      email,
      first_name: person.first,
      last_name: person.last,
      is_active: id === 1 || rng.chance(0.95),
      // User 1 administers the demo; a few other staff members are administrators too.
      is_admin: id === 1 || rng.chance(0.01),
      is_superuser: id === 1,
    };
  }
}

const GROUPS_OF_EMPLOYMENT = new Weighted<string>([
  ['Users', 30], ['Project Editors', 25], ['M&E Managers', 15], ['Enumerators', 15], ['Admins', 10], ['User Managers', 5],
]);

export function* employments(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'employment');
  const { organisations: count } = ctx.plan;
  const reporting = Math.max(1, Math.round(count * 0.1));
  let id = 0;
  yield { id: ++id, user: 1, organisation: 1, group: 'Admins', is_approved: true };
  for (let user = 2; user <= ctx.sizes.user; user++) {
    const jobs = rng.chance(0.65) ? 1 : rng.chance(0.8) ? 2 : 3;
    const taken: number[] = [];
    for (let k = 0; k < jobs; k++) {
      // Staff of the reporting organisations do most of the reporting.
      const organisation = 1 + (rng.chance(0.5) ? rng.int(reporting) : rng.int(count));
      if (taken.includes(organisation)) continue;
      taken.push(organisation);
      yield { id: ++id, user, organisation, group: GROUPS_OF_EMPLOYMENT.pick(rng), is_approved: rng.chance(0.92) };
    }
  }
}
