/**
 * Whether what a key names (a resource's tables, or one table) has stayed at one version for a
 * while, as far as this process has seen. What is built in memory for a version (a list's order,
 * a small table's rows) pays off only if the version lasts: tables being written to are read in
 * SQL until they settle.
 */
export class Settling {
  /** How long a version must have lasted; 0: at once, Infinity: never. */
  ms: number;
  private readonly seen = new Map<string, { version: number; since: number }>();

  constructor(ms: number) {
    this.ms = ms;
  }

  settled(key: string, version: number): boolean {
    if (this.ms <= 0) return true;
    const seen = this.seen.get(key);
    if (seen?.version === version) return performance.now() - seen.since >= this.ms;
    this.seen.set(key, { version, since: performance.now() });
    return false;
  }
}
