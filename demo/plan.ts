/**
 * The skeleton of a demo dataset: how many records of each kind, and the few facts about each
 * project that many entities need (theme, place, currency, dates, partners, dimensions, form).
 * Kept in typed arrays, one slot per project, so memory stays small even at scale 100.
 */
import { FIELD_PLACES, languageOfCountry } from './places.ts';
import { Rng, Weighted, streamSeed } from './random.ts';
import { THEMES } from './themes.ts';
import { dayOf, TODAY } from './calendar.ts';
import { CUSTOM_FIELDS, DIMENSIONS, type CustomFieldDef } from './words.ts';

/** Record counts at scale 1. The nine API lists match the counts observed on the original service. */
const BASE_SIZES = {
  organisation: 400,
  project: 600,
  user: 300,
  project_location: 2100,
  result: 1500,
  indicator: 3300,
  indicator_period: 8500,
  indicator_period_data: 12500,
  project_update: 3000,
  keyword: 82,
  budget_item: 10437,
  transaction: 6790,
  indicator_period_data_comment: 10334,
  recipient_region: 273,
  project_custom_field: 9318,
  administrative_location: 3743,
  link: 4858,
  disaggregation_target: 31459,
  humanitarian_scope: 12,
};

export type Sizes = Record<keyof typeof BASE_SIZES, number>;

export function sizesFor(scale: number): Sizes {
  const sizes = { ...BASE_SIZES };
  for (const key of Object.keys(sizes) as (keyof Sizes)[]) sizes[key] = Math.max(1, Math.round(BASE_SIZES[key] * scale));
  return sizes;
}

/** Project currencies: mostly euros, as on the original service. */
export const PROJECT_CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'KES', 'XOF', 'CAD'];
const CURRENCY_WEIGHTS = new Weighted([76, 16, 2, 1, 1, 2, 1, 1].map((weight, i) => [i, weight] as const));

/** 0 English, 1 Spanish, 2 French: the language a project's partner writes its titles in. */
export type Language = 0 | 1 | 2;

/** Roles of partners besides the reporting one: 1 funding, 2 accountable, 3 extending, 4 implementing. */
const PARTNER_ROLES = new Weighted<number>([[1, 30], [2, 15], [3, 10], [4, 45]]);
export const MAX_PARTNERS = 4;
export const MAX_DIMENSIONS = 4;

export interface CustomFieldSlot extends CustomFieldDef {
  section: number;
  order: number;
}

export interface Plan {
  projects: number;
  organisations: number;
  users: number;
  theme: Uint8Array;
  place: Uint8Array;
  language: Uint8Array;
  currency: Uint8Array;
  /** Planned start and end, as day numbers. */
  start: Int32Array;
  end: Int32Array;
  parent: Int32Array;
  /** The program a project belongs to (its root's id, the root's own for a root), 0 for none. */
  programRoot: Int32Array;
  /** Program roots in id order, and their titles. */
  programs: { id: number; title: string }[];
  /** Partner organisations: MAX_PARTNERS slots per project, the first is the reporting partner. */
  partners: Int32Array;
  roles: Uint8Array;
  partnerCount: Uint8Array;
  /** Indices into DIMENSIONS, MAX_DIMENSIONS slots per project, and first ids of names and values. */
  dimensions: Uint8Array;
  dimensionCount: Uint8Array;
  firstDimensionName: Int32Array;
  firstDimensionValue: Int32Array;
  dimensionValueCount: Uint16Array;
  /** Index into `forms`, or -1 when the project's organisation uses no custom fields. */
  form: Int8Array;
  forms: CustomFieldSlot[][];
}

export function buildPlan(seed: number, sizes: Sizes, countryName: (code: string) => string): Plan {
  const rng = new Rng(streamSeed(seed, 'plan'));
  const n = sizes.project;
  const plan: Plan = {
    projects: n,
    organisations: sizes.organisation,
    users: sizes.user,
    theme: new Uint8Array(n + 1),
    place: new Uint8Array(n + 1),
    language: new Uint8Array(n + 1),
    currency: new Uint8Array(n + 1),
    start: new Int32Array(n + 1),
    end: new Int32Array(n + 1),
    parent: new Int32Array(n + 1),
    programRoot: new Int32Array(n + 1),
    programs: [],
    partners: new Int32Array((n + 1) * MAX_PARTNERS),
    roles: new Uint8Array((n + 1) * MAX_PARTNERS),
    partnerCount: new Uint8Array(n + 1),
    dimensions: new Uint8Array((n + 1) * MAX_DIMENSIONS),
    dimensionCount: new Uint8Array(n + 1),
    firstDimensionName: new Int32Array(n + 1),
    firstDimensionValue: new Int32Array(n + 1),
    dimensionValueCount: new Uint16Array(n + 1),
    form: new Int8Array(n + 1),
    forms: buildForms(rng),
  };
  const firstStart = dayOf(2008, 1, 1);
  let nextName = 1;
  let nextValue = 1;
  for (let p = 1; p <= n; p++) {
    plan.theme[p] = rng.int(THEMES.length);
    plan.place[p] = rng.int(FIELD_PLACES.length);
    plan.language[p] = languageOf(FIELD_PLACES[plan.place[p]].country, rng);
    plan.currency[p] = CURRENCY_WEIGHTS.pick(rng);
    // Recent projects are more common: the platform grew over the years.
    plan.start[p] = firstStart + Math.floor(Math.sqrt(rng.float()) * (TODAY + 200 - firstStart));
    plan.end[p] = plan.start[p] + rng.between(300, 2200);
    pickPartners(plan, p, rng);
    [nextName, nextValue] = pickDimensions(plan, p, rng, nextName, nextValue);
    plan.form[p] = rng.chance(0.85) ? rng.skewed(plan.forms.length, 1.5) : -1;
  }
  buildPrograms(plan, rng, countryName);
  return plan;
}

function languageOf(country: string, rng: Rng): Language {
  const language = languageOfCountry(country);
  if (language === 'es') return rng.chance(0.7) ? 1 : 0;
  if (language === 'fr') return rng.chance(0.6) ? 2 : 0;
  return 0;
}

/** How many organisations are the big ones that report most projects: the first tenth by id. */
export function reportingOrganisations(organisations: number): number {
  return Math.max(1, Math.round(organisations * 0.1));
}

/** One reporting partner, usually one of the few big reporting organisations, plus 1–3 others. */
function pickPartners(plan: Plan, p: number, rng: Rng): void {
  const reporting = reportingOrganisations(plan.organisations);
  const count = Math.min(plan.organisations, 1 + rng.between(1, 3));
  const slot = p * MAX_PARTNERS;
  for (let k = 0; k < count; k++) {
    let organisation = 0;
    // Distinct organisations; a handful of retries is plenty since most organisations are free.
    for (let attempt = 0; attempt < 20; attempt++) {
      organisation = 1 + (k === 0 ? rng.skewed(reporting, 2) : rng.skewed(plan.organisations, 1.6));
      if (!plan.partners.subarray(slot, slot + k).includes(organisation)) break;
      organisation = 0;
    }
    if (organisation === 0) break;
    plan.partners[slot + k] = organisation;
    plan.roles[slot + k] = k === 0 ? 101 : PARTNER_ROLES.pick(rng);
    plan.partnerCount[p] = k + 1;
  }
}

const DIMENSION_COUNT = new Weighted([[0, 15], [1, 22], [2, 33], [3, 21], [4, 9]] as const);

function pickDimensions(plan: Plan, p: number, rng: Rng, nextName: number, nextValue: number): [number, number] {
  const count = DIMENSION_COUNT.pick(rng);
  plan.firstDimensionName[p] = nextName;
  plan.firstDimensionValue[p] = nextValue;
  let values = 0;
  let bySex = false;
  for (let k = 0; k < count; k++) {
    let dimension = rng.int(DIMENSIONS.length);
    const taken = plan.dimensions.subarray(p * MAX_DIMENSIONS, p * MAX_DIMENSIONS + k);
    while (taken.includes(dimension) || (bySex && DIMENSIONS[dimension].sex === true)) {
      dimension = (dimension + 1) % DIMENSIONS.length;
    }
    bySex ||= DIMENSIONS[dimension].sex === true;
    plan.dimensions[p * MAX_DIMENSIONS + k] = dimension;
    values += DIMENSIONS[dimension].values.length;
  }
  plan.dimensionCount[p] = count;
  plan.dimensionValueCount[p] = values;
  return [nextName + count, nextValue + values];
}

/** Custom-field forms: organisations reuse one form for all their projects, so there are few. */
function buildForms(rng: Rng): CustomFieldSlot[][] {
  return Array.from({ length: 8 }, () => {
    const size = rng.between(20, CUSTOM_FIELDS.length);
    const chosen = CUSTOM_FIELDS.map((def, i) => ({ def, key: rng.float(), i }))
      .sort((a, b) => a.key - b.key)
      .slice(0, size)
      .sort((a, b) => a.i - b.i);
    const sections = rng.between(2, 10);
    const orders = new Map<number, number>();
    return chosen.map(({ def }, i) => {
      const section = 1 + Math.floor((i * sections) / chosen.length);
      const order = orders.get(section) ?? 0;
      orders.set(section, order + 1);
      return { ...def, section, order };
    });
  });
}

/**
 * About one program per 60 projects: a root project early in a block of projects, with several
 * later projects of the block as its contributing children (children come after their root, so
 * parents always precede them in the file). Every third child after the first contributes
 * through the first child instead: programs are two levels deep, as the program reports show.
 */
function buildPrograms(plan: Plan, rng: Rng, countryName: (code: string) => string): void {
  const n = plan.projects;
  if (n < 3) return;
  const count = Math.max(1, Math.round(n / 60));
  const block = Math.floor(n / count);
  for (let k = 0; k < count; k++) {
    const first = k * block + 1;
    const last = k === count - 1 ? n : first + block - 1;
    const root = first + rng.int(Math.min(5, last - first - 1));
    const wanted = Math.min(last - root, rng.between(3, 10));
    const children: number[] = [];
    for (let p = root + 1; p <= last && children.length < wanted; p++) {
      if (rng.float() * (last - p + 1) < wanted - children.length) {
        plan.parent[p] = children.length % 3 === 2 ? children[0] : root;
        plan.theme[p] = plan.theme[root];
        plan.programRoot[p] = root;
        children.push(p);
      }
    }
    plan.programRoot[root] = root;
    const country = countryName(FIELD_PLACES[plan.place[root]].country);
    plan.programs.push({ id: root, title: `${rng.pick(THEMES[plan.theme[root]].programs)} ${country}` });
  }
}
