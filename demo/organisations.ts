/** Organisations, with their addresses (`locations`). */
import { stream, type DemoContext } from './context.ts';
import { asciiSlug } from './lexicon.ts';
import { acronym, NameMaker, type Kind } from './organisation-names.ts';
import { DONOR_PLACES, FIELD_PLACES, languageOfCountry, near, STATE_OF_PLACE, type Place } from './places.ts';
import { reportingOrganisations } from './plan.ts';
import { Weighted, type Rng } from './random.ts';
import { GROUPS } from './themes.ts';
import { DAY_SECONDS, dayOf, officeMoment, timestampText, TODAY } from './calendar.ts';

type Row = Record<string, unknown>;

/** organisation_type letter, the kind of name it gets, and the IATI OrganisationType codes that fit. */
const TYPES = new Weighted<[string | null, Kind, number[]]>([
  [['N', 'ngo', [21, 22, 23, 24]], 50],
  [['G', 'government', [10, 11, 15, 40]], 14],
  [['C', 'company', [70, 71, 72, 73, 30]], 16],
  [['K', 'academic', [80]], 8],
  [[null, 'ngo', [22, 60, 90]], 12],
]);

const DIAL_CODES: Readonly<Record<string, string>> = {
  KE: '254', UG: '256', TZ: '255', ET: '251', RW: '250', BI: '257', MW: '265', ZM: '260', MZ: '258', ZW: '263',
  BF: '226', ML: '223', NE: '227', SN: '221', GH: '233', CI: '225', NG: '234', BJ: '229', TG: '228', SL: '232',
  LR: '231', CD: '243', SS: '211', SD: '249', MG: '261', CO: '57', PE: '51', BO: '591', EC: '593', HN: '504',
  NI: '505', GT: '502', SV: '503', HT: '509', PY: '595', NP: '977', BD: '880', VN: '84', KH: '855', LA: '856',
  ID: '62', PH: '63', AF: '93', PK: '92', YE: '967', JO: '962', PS: '970', EG: '20', MA: '212', NL: '31',
  GB: '44', BE: '32', FR: '33', CH: '41', SE: '46', DK: '45', NO: '47', DE: '49', ES: '34', US: '1', CA: '1',
};

/** How an organisation of each kind introduces itself, before what it may add. */
const INTRODUCTIONS: Readonly<Record<Kind, string>> = {
  ngo: '{name} is a non-profit organisation based in {place}.',
  government: '{name} is responsible for public services in {place} and the surrounding districts.',
  company: '{name} is a private company based in {place}.',
  academic: '{name} carries out research and training in {country}.',
};

const ORGANISATION_SENTENCES = [
  'Founded in {year}, we work with {group} in {country} and the wider region.',
  'Our mission is to improve access to basic services for {group}.',
  'We believe that lasting change starts with local ownership.',
  'The organisation works in {n} districts together with local authorities and community groups.',
  'We are a member of several national and international networks.',
];
const ORGANISATION_SENTENCES_IN: Readonly<Record<string, string>> = {
  es: 'Trabajamos con organizaciones de base para fortalecer sus capacidades.',
  fr: 'Nous accompagnons les communautés rurales dans la gestion de leurs ressources.',
};

const NOTES = ['Partner since the first phase.', 'Annual audit received.', 'Contact via the regional office.', 'Nuevo socio desde 2021.'];

/** The currency an organisation keeps its books in besides euros and dollars. */
const LOCAL_CURRENCIES: Readonly<Record<string, string>> = {
  KE: 'KES', SN: 'XOF', BF: 'XOF', ML: 'XOF', NE: 'XOF', CI: 'XOF', BJ: 'XOF', TG: 'XOF', GB: 'GBP', CH: 'CHF',
  SE: 'SEK', CA: 'CAD',
};

/** The organisation's language ('en', 'es' or 'fr', the languages the service offers). */
function languageOf(country: string, rng: Rng): string {
  const language = languageOfCountry(country);
  if (language === 'es') return rng.chance(0.8) ? 'es' : 'en';
  if (language === 'fr') return rng.chance(0.7) ? 'fr' : 'en';
  return 'en';
}

function phone(country: string, rng: Rng): string {
  const dial = DIAL_CODES[country] ?? '31';
  return `+${dial} ${rng.between(10, 99)} ${rng.between(100, 999)} ${rng.between(1000, 9999)}`;
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
  const reporting = reportingOrganisations(count);
  const firstDay = dayOf(2008, 3, 1);
  let locationId = 0;
  for (let id = 1; id <= count; id++) {
    const [type, kind, newTypes] = TYPES.pick(rng);
    // The big reporting organisations sit where funders are; most partners where the work is.
    const place = rng.chance(id <= reporting ? 0.8 : 0.25) ? rng.pick(DONOR_PLACES) : rng.pick(FIELD_PLACES);
    const person = rng.pick(lexicon.people);
    const [name, longName] = names.make(id, kind, place, person, rng);
    const language = languageOf(place.country, rng);
    // Long names make unwieldy domains; organisations then go by their initials online.
    const fullSlug = asciiSlug(name, '-');
    const slug = fullSlug.length > 24 ? asciiSlug(acronym(longName)) || `org-${id}` : fullSlug || `org-${id}`;
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
      language,
      organisation_type: type,
      new_organisation_type: rng.pick(newTypes),
      currency: rng.chance(0.6) ? 'EUR' : rng.chance(0.75) ? 'USD' : (LOCAL_CURRENCIES[place.country] ?? 'EUR'),
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
      description: rng.chance(0.75) ? organisationDescription(ctx, longName, kind, place, language, rng) : '',
      notes: rng.chance(0.12) ? rng.pick(NOTES) : '',
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

function organisationDescription(ctx: DemoContext, name: string, kind: Kind, place: Place, language: string, rng: Rng): string {
  const chosen = [INTRODUCTIONS[kind]];
  const more = rng.between(0, 3);
  for (let i = 0; i < more; i++) {
    const sentence = rng.pick(ORGANISATION_SENTENCES);
    if (!chosen.includes(sentence)) chosen.push(sentence);
  }
  const own = ORGANISATION_SENTENCES_IN[language];
  if (own !== undefined && rng.chance(0.5)) chosen.push(own);
  const text = chosen.map((sentence) => sentence.replace(/\{(\w+)\}/g, (_, key: string) => {
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
  return text.join(rng.chance(0.3) ? '\n\n' : ' ');
}

interface OrganisationLocation {
  id: number;
  latitude: number;
  longitude: number;
  city: string;
  state: string;
  address_1: string;
  address_2: string;
  postcode: string;
  iati_country: string;
  country: number | null;
  location_target: number;
}

function organisationLocations(
  ctx: DemoContext, organisation: number, place: Place, rng: Rng, nextId: () => number,
): OrganisationLocation[] {
  if (!rng.chance(0.7)) return [];
  const count = rng.chance(0.7) ? 1 : 2;
  const { lexicon } = ctx;
  const locations: OrganisationLocation[] = [];
  for (let k = 0; k < count; k++) {
    const where = k === 0 ? place : rng.pick(FIELD_PLACES);
    const iatiCountry = rng.chance(0.92) ? where.country : '';
    const addresses = lexicon.addresses[languageOfCountry(where.country)];
    const state = STATE_OF_PLACE[where.name];
    locations.push({
      id: nextId(),
      latitude: near(where.lat, 0.05, rng),
      longitude: near(where.lon, 0.05, rng),
      city: rng.chance(0.85) ? where.name : '',
      state: state !== undefined && rng.chance(0.5) ? state : '',
      address_1: rng.chance(0.7) ? rng.pick(addresses.streets) : '',
      address_2: rng.chance(0.15) ? rng.pick(addresses.secondary) : '',
      // Postcodes are the rule in Europe and North America, rare where projects work.
      postcode: rng.chance(where.donor === true ? 0.8 : 0.1) ? rng.pick(addresses.postcodes) : '',
      iati_country: iatiCountry,
      country: iatiCountry === '' ? null : (ctx.countryPosition.get(iatiCountry) ?? null),
      location_target: organisation,
    });
  }
  return locations;
}

