/**
 * Exact allocation of children to parents. The sizes of the demo are totals (10,437 budget items at
 * scale 1), while realism wants uneven counts per parent. Each parent gets a random weight; the
 * total is then spread in proportion to the weights by cumulative rounding, so the counts add up to
 * the total exactly, parents with weight 0 get nothing, and the whole thing streams: only the sum of
 * the weights must be known before the first parent.
 */
import { Rng } from './random.ts';

export class Splitter {
  private cumulative = 0;
  private given = 0;

  /**
   * @param capped when true a parent never gets more children than its weight (the weight is then a
   *   capacity, e.g. the dimension values a period can have targets for); if the capacities cannot
   *   hold the total, every parent is simply filled.
   */
  private readonly total: number;
  private readonly weightSum: number;
  private readonly capped: boolean;

  constructor(total: number, weightSum: number, capped: boolean) {
    this.total = total;
    this.weightSum = weightSum;
    this.capped = capped;
  }

  next(weight: number): number {
    if (this.weightSum <= 0) return 0;
    if (this.capped && this.total >= this.weightSum) return weight;
    this.cumulative += weight;
    // total * cumulative stays below 2^53 for any realistic scale, so this is exact integer math.
    const upTo = Math.floor((this.total * this.cumulative) / this.weightSum);
    const count = upTo - this.given;
    this.given = upTo;
    return count;
  }
}

/** A child as the split hands it out: its id, its parent, and its place among its siblings. */
export interface Child<P> {
  id: number;
  parent: P;
  index: number;
  siblings: number;
}

export interface SplitSpec<P> {
  /** The parents, in id order; called once per pass, so it must give the same parents each time. */
  parents: () => Iterable<P>;
  total: number;
  /** Seed of the weight stream: both passes draw the same weights. */
  seed: number;
  weight: (parent: P, rng: Rng) => number;
  capped?: boolean;
  /**
   * Capped splits only: weights to use instead when `weight` cannot hold the total, which happens
   * in tiny datasets (a handful of projects that happen to have no recipient regions).
   */
  fallback?: (parent: P, rng: Rng) => number;
  /** Where to remember the weight sum, so a walk repeated by other entities skips the first pass. */
  memo?: Map<string, number>;
  memoKey?: string;
}

interface Weights {
  sum: number;
  parents: number;
}

function weights<P>(spec: SplitSpec<P>, weight: SplitSpec<P>['weight'], key: string | undefined): Weights {
  const known = key === undefined ? undefined : spec.memo?.get(key);
  const knownParents = key === undefined ? undefined : spec.memo?.get(`${key}:parents`);
  if (known !== undefined && knownParents !== undefined) return { sum: known, parents: knownParents };
  const rng = new Rng(spec.seed);
  let sum = 0;
  let parents = 0;
  for (const parent of spec.parents()) {
    sum += weight(parent, rng);
    parents++;
  }
  if (key !== undefined) {
    spec.memo?.set(key, sum);
    spec.memo?.set(`${key}:parents`, parents);
  }
  return { sum, parents };
}

/** Children with ids 1, 2, … in parent order; `spec.total` of them (fewer only when capped). */
export function* split<P>(spec: SplitSpec<P>): Generator<Child<P>> {
  const capped = spec.capped ?? false;
  let weight = spec.weight;
  let { sum, parents } = weights(spec, weight, spec.memoKey);
  if (capped && sum < spec.total && spec.fallback !== undefined) {
    weight = spec.fallback;
    ({ sum, parents } = weights(spec, weight, spec.memoKey === undefined ? undefined : `${spec.memoKey}:fallback`));
  }
  // In tiny datasets every weight may come out 0 (say, all periods in the future); rather than
  // leave the entity empty, spread the children evenly.
  const even = sum === 0 && !capped;
  const splitter = new Splitter(spec.total, even ? parents : sum, capped);
  const rng = new Rng(spec.seed);
  let id = 0;
  for (const parent of spec.parents()) {
    const w = weight(parent, rng);
    const count = splitter.next(even ? 1 : w);
    for (let index = 0; index < count; index++) {
      id++;
      yield { id, parent, index, siblings: count };
    }
  }
}
