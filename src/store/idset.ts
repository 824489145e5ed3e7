/**
 * A set of positive integer ids in memory proportional to the ranges used (a bitmap per block
 * of 65,536 ids), so an import of millions of records keeps its bookkeeping small. The blocks
 * are shared memory: a set sent to a reader thread (its `blocks`) is not copied.
 */
const BLOCK_BITS = 16;
const BLOCK_SIZE = 1 << BLOCK_BITS;

export class IdSet {
  /** The bitmaps by block: what a thread is sent to make the same set again. */
  readonly blocks: Map<number, Uint32Array>;
  size = 0;

  /** A new set, or (given `blocks`, another's) the same ids, for reading: its size then is not known. */
  constructor(blocks = new Map<number, Uint32Array>()) {
    this.blocks = blocks;
  }

  /** A set of `ids` (as a query's ids come, Engine.readIds). */
  static of(ids: Iterable<number>): IdSet {
    const set = new IdSet();
    for (const id of ids) set.add(id);
    return set;
  }

  /** The memory its bitmaps take. */
  get bytes(): number {
    return this.blocks.size * (BLOCK_SIZE / 8);
  }

  has(id: number): boolean {
    const block = this.blocks.get(Math.floor(id / BLOCK_SIZE));
    if (!block) return false;
    const offset = id % BLOCK_SIZE;
    return (block[offset >>> 5] & (1 << (offset & 31))) !== 0;
  }

  /**
   * The sum of `counts` at the places whose id in `ids` (ascending) is in the set: a histogram's
   * part a caller sees. Each block is looked up once, not once per id.
   */
  sumOver(ids: Int32Array, counts: Int32Array): number {
    let [total, key, block] = [0, -1, undefined as Uint32Array | undefined];
    for (let index = 0; index < ids.length; index += 1) {
      const id = ids[index];
      if (id < 0) continue;
      const at = Math.floor(id / BLOCK_SIZE);
      if (at !== key) [key, block] = [at, this.blocks.get(at)];
      const offset = id % BLOCK_SIZE;
      if (block && (block[offset >>> 5] & (1 << (offset & 31))) !== 0) total += counts[index];
    }
    return total;
  }

  /** Adds the id; false when it was already there. */
  add(id: number): boolean {
    const key = Math.floor(id / BLOCK_SIZE);
    let block = this.blocks.get(key);
    if (!block) {
      block = new Uint32Array(new SharedArrayBuffer(BLOCK_SIZE / 8));
      this.blocks.set(key, block);
    }
    const offset = id % BLOCK_SIZE;
    const mask = 1 << (offset & 31);
    if ((block[offset >>> 5] & mask) !== 0) return false;
    block[offset >>> 5] |= mask;
    this.size += 1;
    return true;
  }
}
