/** Where projects work: project locations, their administrative units, and recipient regions. */
import { facts, ids, projectWords, stream, type DemoContext } from './context.ts';
import { near, REGION_OF_COUNTRY } from './places.ts';
import { streamSeed, Weighted, type Rng } from './random.ts';
import { split, type Child } from './split.ts';

type Row = Record<string, unknown>;

/** Project locations as (location id, project id); every walk gives the same split. */
function locationSplit(ctx: DemoContext): Generator<Child<number>> {
  return split({
    parents: () => ids(ctx.plan.projects),
    total: ctx.sizes.project_location,
    seed: streamSeed(ctx.seed, 'split:project_location'),
    weight: (_, rng) => (rng.chance(0.08) ? 0 : 1 + rng.skewed(8, 2)),
    memo: ctx.memo,
    memoKey: 'project_location',
  });
}

/** A location without a country is rare; administrative locations need to know which ones. */
function countryOf(ctx: DemoContext): (location: number, project: number) => string | null {
  const missing = facts(ctx, 'project_location:no-country');
  const wordsOf = projectWords(ctx);
  return (location, project) => (missing(location) < 0.02 ? null : wordsOf(project).place.country);
}

export function* projectLocations(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'project_location');
  const wordsOf = projectWords(ctx);
  const country = countryOf(ctx);
  const { lexicon } = ctx;
  for (const { id, parent: project } of locationSplit(ctx)) {
    const { place } = wordsOf(project);
    const placed = rng.chance(0.98);
    yield {
      id,
      project,
      // Work spreads over the region around the project's town, up to a degree or so away.
      latitude: placed ? near(place.lat, 1, rng) : null,
      longitude: placed ? near(place.lon, 1, rng) : null,
      country: country(id, project),
      name: rng.chance(0.45) ? '' : locationName(rng, place.name, place.local, rng.pick(lexicon.people).last),
    };
  }
}

function locationName(rng: Rng, town: string, local: string | undefined, surname: string): string {
  if (local !== undefined && rng.chance(0.2)) return local;
  return rng.pick([
    town, `${town} District`, `${surname} Primary School`, `Health centre ${town}`, `Comunidad ${surname}`,
    `Village de ${surname}`, `${surname} village`, `${town} market`,
  ]);
}

const VOCABULARIES = new Weighted<string>([['A4', 40], ['G1', 35], ['', 25]]);

export function* administrativeLocations(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'administrative_location');
  const country = countryOf(ctx);
  const children = split({
    parents: () => locationSplit(ctx),
    total: ctx.sizes.administrative_location,
    seed: streamSeed(ctx.seed, 'split:administrative_location'),
    weight: (_, r) => (r.chance(0.2) ? 0 : r.between(1, 3)),
  });
  for (const { id, parent: location, index } of children) {
    const vocabulary = VOCABULARIES.pick(rng);
    const code = country(location.id, location.parent);
    let text = '';
    if (vocabulary === 'A4') text = code ?? '';
    else if (vocabulary === 'G1') text = String(rng.between(100_000, 9_999_999));
    else if (rng.chance(0.4)) text = `${code ?? 'XX'}-${String(rng.between(1, 60)).padStart(2, '0')}`;
    yield {
      id,
      location: location.id,
      vocabulary,
      code: text,
      level: rng.chance(0.2) ? null : vocabulary === 'A4' ? 0 : index + 1,
    };
  }
}

/** The regions the original shows most, and the chance to pick one of them. */
const COMMON_REGIONS = ['89', '298', '389', '489', '498', '589', '689', '798'];
const REGION_COUNTS = new Weighted([[1, 55], [2, 25], [3, 12], [4, 8]] as const);

export function* recipientRegions(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'recipient_region');
  const wordsOf = projectWords(ctx);
  const regionNames = new Map(ctx.codes.region.map((row) => [row.code, row.name]));
  const allRegions = ctx.codes.region.map((row) => row.code);
  const children = split({
    parents: () => ids(ctx.plan.projects),
    total: ctx.sizes.recipient_region,
    seed: streamSeed(ctx.seed, 'split:recipient_region'),
    weight: (_, r) => (r.chance(0.32) ? REGION_COUNTS.pick(r) : 0),
    capped: true,
    fallback: (_, r) => REGION_COUNTS.pick(r),
  });
  let regions: string[] = [];
  let tenths: number[] = [];
  for (const { id, parent: project, index, siblings } of children) {
    if (index === 0) {
      regions = pickRegions(rng, siblings, REGION_OF_COUNTRY[wordsOf(project).place.country], allRegions);
      tenths = shares(rng, siblings);
    }
    const vocabulary = rng.chance(0.88) ? '1' : '';
    yield {
      id,
      project,
      region: regions[index],
      text: (regionNames.get(regions[index]) ?? '').slice(0, 50),
      percentage: tenths[index] / 10,
      region_vocabulary: vocabulary,
      region_vocabulary_uri: vocabulary === '1' && rng.chance(0.1) ? 'https://iatistandard.org/en/iati-standard/203/codelists/region/' : '',
    };
  }
}

/** `count` distinct regions, the first usually the region of the project's country. */
function pickRegions(rng: Rng, count: number, home: string | undefined, all: readonly string[]): string[] {
  const chosen: string[] = home !== undefined && rng.chance(0.7) ? [home] : [];
  while (chosen.length < count) {
    const region = rng.chance(0.85) ? rng.pick(COMMON_REGIONS) : rng.pick(all);
    if (!chosen.includes(region)) chosen.push(region);
  }
  return chosen;
}

/** Shares of a project's regions in tenths of a percent, at least 0.1 each, adding up to exactly 100. */
function shares(rng: Rng, count: number): number[] {
  if (count === 1) return [1000];
  // People mostly split in round numbers (60/40, 25/25/50); sometimes in tenths.
  const unit = rng.chance(0.6) ? 50 : 1;
  const units = 1000 / unit;
  const weights = Array.from({ length: count }, () => 0.2 + rng.float());
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.max(1, Math.floor((w / sum) * units)));
  let rest = units - parts.reduce((a, b) => a + b, 0);
  for (let i = 0; rest !== 0; i = (i + 1) % count) {
    if (rest > 0) {
      parts[i]++;
      rest--;
    } else if (parts[i] > 1) {
      parts[i]--;
      rest++;
    }
  }
  return parts.map((part) => part * unit);
}
