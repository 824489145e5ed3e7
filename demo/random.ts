/**
 * Seeded randomness for the demo generator. Faker is far too slow to call per record at scale 100,
 * so records draw from a small, fast PRNG (sfc32) instead. Every stream is derived from the demo
 * seed and a name, so one entity's records never depend on the order other entities are read in.
 */

/** Avalanches a 32-bit integer (the "lowbias32" finaliser): nearby inputs give unrelated outputs. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A 32-bit hash of a seed and an integer key: the same pair always gives the same number. */
export function hash2(seed: number, key: number): number {
  return mix32((mix32(seed) + Math.imul(key, 0x9e3779b1)) | 0);
}

/** A stateless uniform number in [0, 1) for (seed, key): for facts several generators must agree on. */
export function unit(seed: number, key: number): number {
  return hash2(seed, key) / 4294967296;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The seed of the stream called `name` under the demo seed (any finite number is accepted). */
export function streamSeed(seed: number, name: string): number {
  const low = seed >>> 0;
  const high = Math.floor(seed / 4294967296) >>> 0;
  return mix32(fnv1a(name) ^ mix32(low ^ mix32(high)));
}

/** sfc32: small, fast and statistically sound; plenty for test data. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = seed >>> 0;
    // The first outputs of a freshly seeded sfc32 are still correlated with the seed.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform unsigned 32-bit integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [low, high], both included. */
  between(low: number, high: number): number {
    return low + Math.floor(this.float() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }

  /** Skewed towards 0: index in [0, n) with density falling like x^power (power > 1). */
  skewed(n: number, power: number): number {
    return Math.floor(Math.pow(this.float(), power) * n);
  }

  /** Log-uniform in [low, high): amounts of money look like this (many small, a few large). */
  logUniform(low: number, high: number): number {
    return low * Math.pow(high / low, this.float());
  }
}

/** Items picked with fixed relative weights, e.g. `new Weighted([['A', 80], ['P', 8]])`. */
export class Weighted<T> {
  private readonly items: T[];
  private readonly cumulative: number[];
  private readonly total: number;

  constructor(entries: readonly (readonly [T, number])[]) {
    this.items = entries.map(([item]) => item);
    let sum = 0;
    this.cumulative = entries.map(([, weight]) => (sum += weight));
    this.total = sum;
  }

  pick(rng: Rng): T {
    const x = rng.float() * this.total;
    let i = 0;
    while (this.cumulative[i] <= x) i++;
    return this.items[i];
  }
}
