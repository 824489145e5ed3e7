/**
 * A set of positive integer ids in memory proportional to the ranges used (a bitmap per block
 * of 65,536 ids), so an import of millions of records keeps its bookkeeping small. The blocks
 * are shared memory: a set sent to a reader thread (its `blocks`) is not copied.
 */
const BLOCK_BITS = 16;
const BLOCK_SIZE = 1 << BLOCK_BITS;
const BLOCK_WORDS = BLOCK_SIZE / 32;
const BLOCK_BYTES = BLOCK_SIZE / 8;
/** Whether a 32-bit word's bytes lie lowest first, as `span` lays its bits out. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** How many bits of a 32-bit word are set. */
function bitsSet(word: number): number {
  let count = 0;
  for (let rest = word >>> 0; rest !== 0; rest &= rest - 1) count += 1;
  return count;
}

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

  /** Its blocks as two plain arrays, for another process (shared memory does not go there): their keys, and their bits one after another. */
  flat(): { keys: Int32Array; bits: Uint32Array } {
    const keys = Int32Array.from(this.blocks.keys());
    const bits = new Uint32Array(keys.length * BLOCK_WORDS);
    keys.forEach((key, index) => bits.set(this.blocks.get(key)!, index * BLOCK_WORDS));
    return { keys, bits };
  }

  /** The set `flat` gave (its size counted, so that sets patched from it keep theirs), or null where the arrays do not fit together. */
  static fromFlat({ keys, bits }: { keys: Int32Array; bits: Uint32Array }): IdSet | null {
    if (bits.length !== keys.length * BLOCK_WORDS) return null;
    const set = new IdSet();
    keys.forEach((key, index) => {
      const block = new Uint32Array(new SharedArrayBuffer(BLOCK_BYTES));
      block.set(bits.subarray(index * BLOCK_WORDS, (index + 1) * BLOCK_WORDS));
      set.blocks.set(key, block);
    });
    for (const word of bits) set.size += bitsSet(word);
    return set;
  }

  /**
   * The set as one bitmap from its lowest block to its highest: id `start + n` is bit `n % 8`
   * (counted from the lowest) of byte `n >> 3`, as PostgreSQL's get_bit reads a bytea.
   */
  span(): { start: number; bytes: Uint8Array } {
    const keys = [...this.blocks.keys()];
    if (keys.length === 0) return { start: 0, bytes: new Uint8Array(0) };
    const [low, high] = [Math.min(...keys), Math.max(...keys)];
    const bytes = new Uint8Array((high - low + 1) * BLOCK_BYTES);
    const view = new DataView(bytes.buffer);
    for (const [key, block] of this.blocks) {
      const at = (key - low) * BLOCK_BYTES;
      if (LITTLE_ENDIAN) bytes.set(new Uint8Array(block.buffer, block.byteOffset, block.byteLength), at);
      else block.forEach((word, index) => view.setUint32(at + index * 4, word, true));
    }
    return { start: low * BLOCK_SIZE, bytes };
  }

  /** The memory its bitmaps take. */
  get bytes(): number {
    return this.blocks.size * BLOCK_BYTES;
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
    return this.change(id, true, () => false);
  }

  /**
   * A new set: this one without `removed`, then with `added`. The blocks it does not change are
   * the same memory as this set's, the others copied first: neither set changes afterwards, and
   * one read at a time through a reader thread goes on with the old.
   */
  patched(removed: Iterable<number>, added: Iterable<number>): IdSet {
    const next = new IdSet(new Map(this.blocks));
    next.size = this.size;
    const copied = new Set<number>();
    const own = (key: number) => {
      if (copied.has(key)) return false;
      copied.add(key);
      return true;
    };
    for (const id of removed) next.change(id, false, own);
    for (const id of added) next.change(id, true, own);
    return next;
  }

  /**
   * Sets or clears the id's bit; false when it was so already. `copy(key)`: whether the block
   * must be copied before it is changed (it is another set's memory too).
   */
  private change(id: number, present: boolean, copy: (key: number) => boolean): boolean {
    const key = Math.floor(id / BLOCK_SIZE);
    const block = this.blocks.get(key);
    const offset = id % BLOCK_SIZE;
    const mask = 1 << (offset & 31);
    const was = ((block?.[offset >>> 5] ?? 0) & mask) !== 0;
    if (was === present) return false;
    let mine = block;
    if (copy(key) || !mine) {
      mine = new Uint32Array(new SharedArrayBuffer(BLOCK_BYTES));
      if (block) mine.set(block);
      this.blocks.set(key, mine);
    }
    if (present) mine[offset >>> 5] |= mask;
    else mine[offset >>> 5] &= ~mask;
    this.size += present ? 1 : -1;
    return true;
  }
}
