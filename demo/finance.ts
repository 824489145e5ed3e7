/** Money: budget items and transactions of projects. */
import { ids, projectWords, stream, type DemoContext } from './context.ts';
import { MAX_PARTNERS, PROJECT_CURRENCIES } from './plan.ts';
import { REGION_OF_COUNTRY } from './places.ts';
import { streamSeed, Weighted, type Rng } from './random.ts';
import { split } from './split.ts';
import { dateText, pastDay, yearOf } from './calendar.ts';
import { OTHER_BUDGET_NAMES } from './words.ts';

type Row = Record<string, unknown>;

/** Budget item labels: the five the original shows most, then the rest of RSR's list, rarely none. */
const LABELS = new Weighted<number | null>([
  [14, 22], [38, 28], [5, 15], [7, 12], [4, 8], [8, 2], [10, 1], [12, 1], [15, 1], [16, 1], [17, 1], [18, 1],
  [39, 1], [40, 1], [41, 1], [42, 0.5], [43, 0.5], [44, 0.5], [null, 3],
]);
const BUDGET_TYPES = new Weighted<string>([['1', 35], ['2', 12], ['', 53]]);
const BUDGET_STATUSES = new Weighted<string>([['2', 20], ['1', 5], ['', 75]]);

/** An amount of money: many small ones, a few large; often whole, sometimes with cents. */
function amount(rng: Rng, low: number, high: number): number {
  const value = rng.logUniform(low, high);
  if (rng.chance(0.3)) return Math.round(value / 100) * 100;
  if (rng.chance(0.4)) return Math.round(value);
  return Math.round(value * 100) / 100;
}

/** A budget line: totals are large, a few items are corrections (negative), a few have no amount. */
function budgetAmount(label: number | null, rng: Rng): number | null {
  if (rng.chance(0.02)) return null;
  if (rng.chance(0.005)) return -amount(rng, 50, 5000);
  return label === 14 ? amount(rng, 20_000, 5_000_000) : amount(rng, 200, 500_000);
}

/** The item's own currency, or '' (then the project's currency applies), as the original stores it. */
function currency(rng: Rng, projectCurrency: string): string {
  if (rng.chance(0.55)) return '';
  return rng.chance(0.8) ? projectCurrency : rng.pick(PROJECT_CURRENCIES);
}

export function* budgetItems(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'budget_item');
  const { plan } = ctx;
  const children = split({
    parents: () => ids(plan.projects),
    total: ctx.sizes.budget_item,
    seed: streamSeed(ctx.seed, 'split:budget_item'),
    weight: (_, r) => (r.chance(0.1) ? 0 : 1 + r.skewed(50, 2)),
  });
  for (const { id, parent: project, index } of children) {
    const label = LABELS.pick(rng);
    const start = plan.start[project];
    const end = plan.end[project];
    // Budgets are planned per project year; item k falls in year k of the project, cycling.
    const years = Math.max(1, Math.ceil((end - start + 1) / 365));
    const periodStart = start + (index % years) * 365;
    const dated = rng.chance(0.65);
    yield {
      id,
      project,
      label,
      other_extra: label === 38 ? (rng.chance(0.9) ? rng.pick(OTHER_BUDGET_NAMES) : '') : rng.chance(0.6) ? null : '',
      amount: budgetAmount(label, rng),
      type: BUDGET_TYPES.pick(rng),
      currency: currency(rng, PROJECT_CURRENCIES[plan.currency[project]]),
      status: BUDGET_STATUSES.pick(rng),
      period_start: dated ? dateText(periodStart) : null,
      period_end: dated ? dateText(Math.max(periodStart, Math.min(end, periodStart + 364))) : null,
      value_date: rng.chance(0.25) ? dateText(rng.between(start, end)) : null,
    };
  }
}

const TRANSACTION_TYPES = new Weighted<string>([
  ['1', 22], ['2', 12], ['3', 25], ['4', 22], ['11', 5], ['5', 0.5], ['6', 0.5], ['7', 1], ['12', 0.5], ['13', 0.5],
  // IATI 1.x disbursements linger in old projects; some transactions never got a type.
  ['D', 6], ['', 5],
]);
const AID_TYPES = new Weighted<string>([['C01', 60], ['B01', 10], ['B03', 8], ['D02', 7], ['A02', 5], ['E01', 5], ['H01', 5]]);
const FINANCE_TYPES = new Weighted<string>([['110', 85], ['410', 5], ['421', 4], ['111', 3], ['510', 3]]);
const FLOW_TYPES = new Weighted<string>([['10', 85], ['30', 10], ['21', 5]]);
const TIED_STATUSES = new Weighted<string>([['5', 80], ['4', 12], ['3', 8]]);
const REGION_VOCABULARIES = new Weighted<string>([['1', 85], ['2', 5], ['99', 10]]);
const DESCRIPTIONS = [
  'First instalment', 'Second instalment', 'Final payment', 'Transfer to implementing partner',
  'Purchase of construction materials', 'Salaries field staff', 'Training workshop costs', 'Audit fee',
  'Grant received from donor', 'Co-financing contribution', 'Quarterly transfer', 'Procurement of water pumps',
  'Reimbursement of travel costs', 'Transferencia al socio local', 'Versement de la deuxième tranche',
];

export function* transactions(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'transaction');
  const { plan, codes } = ctx;
  const wordsOf = projectWords(ctx);
  const allRegions = codes.region.map((row) => row.code);
  const children = split({
    parents: () => ids(plan.projects),
    total: ctx.sizes.transaction,
    seed: streamSeed(ctx.seed, 'split:transaction'),
    weight: (_, r) => (r.chance(0.3) ? 0 : 1 + r.skewed(40, 2)),
  });
  for (const { id, parent: project } of children) {
    const type = TRANSACTION_TYPES.pick(rng);
    const day = pastDay(rng, plan.start[project], plan.end[project]);
    const country = wordsOf(project).place.country;
    const incoming = type === '1' || type === '11' || type === '13';
    const region = rng.chance(0.1) ? (rng.chance(0.6) ? REGION_OF_COUNTRY[country] ?? rng.pick(allRegions) : rng.pick(allRegions)) : '';
    const regionVocabulary = region === '' ? '' : REGION_VOCABULARIES.pick(rng);
    yield {
      id,
      project,
      reference: rng.chance(0.55) ? reference(rng, yearOf(day)) : '',
      description: rng.chance(0.65) ? rng.pick(DESCRIPTIONS) : '',
      transaction_date: rng.chance(0.95) ? dateText(day) : null,
      transaction_type: type,
      value: rng.chance(0.02) ? null : amount(rng, 100, incoming ? 5_000_000 : 800_000),
      value_date: rng.chance(0.5) ? dateText(day + rng.between(0, 10)) : null,
      currency: currency(rng, PROJECT_CURRENCIES[plan.currency[project]]),
      // Money comes in from funders and goes out to implementers; both are partners of the project.
      provider_organisation: rng.chance(0.65) ? partner(ctx, project, incoming ? 1 : 101, rng) : null,
      provider_organisation_activity: rng.chance(0.15) ? activity(rng, project) : '',
      receiver_organisation: rng.chance(incoming ? 0.3 : 0.55) ? partner(ctx, project, incoming ? 101 : 4, rng) : null,
      receiver_organisation_activity: rng.chance(0.1) ? activity(rng, project) : '',
      aid_type_vocabulary: '1',
      aid_type: rng.chance(0.35) ? AID_TYPES.pick(rng) : '',
      disbursement_channel: rng.chance(0.2) ? rng.pick(codes.disbursementChannel) : '',
      finance_type: rng.chance(0.4) ? FINANCE_TYPES.pick(rng) : '',
      flow_type: rng.chance(0.4) ? FLOW_TYPES.pick(rng) : '',
      tied_status: rng.chance(0.3) ? TIED_STATUSES.pick(rng) : '',
      recipient_country: rng.chance(0.35) ? country : '',
      recipient_region: region,
      recipient_region_vocabulary: regionVocabulary,
      recipient_region_vocabulary_uri: regionVocabulary === '99' ? 'https://www.example.org/regions' : '',
      sectors: [],
      humanitarian: rng.chance(0.9) ? null : rng.chance(0.7) ? false : true,
    };
  }
}

/** The project's partner with `role`, or else any of its partners. */
function partner(ctx: DemoContext, project: number, role: number, rng: Rng): number {
  const { plan } = ctx;
  const slot = project * MAX_PARTNERS;
  const count = plan.partnerCount[project];
  for (let k = 0; k < count; k++) if (plan.roles[slot + k] === role) return plan.partners[slot + k];
  return plan.partners[slot + rng.int(count)];
}

function reference(rng: Rng, year: number): string {
  switch (rng.int(4)) {
    case 0: return `TR-${year}-${String(rng.between(1, 9999)).padStart(4, '0')}`;
    case 1: return `INV ${rng.between(10000, 99999)}`;
    case 2: return `${year}/${rng.between(100, 999)}`;
    default: return `PO-${rng.between(100000, 999999)}`;
  }
}

function activity(rng: Rng, project: number): string {
  return `NL-KVK-${rng.between(10_000_000, 99_999_999)}-${project}`;
}
