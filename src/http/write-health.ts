/**
 * What the last writes met: a storage fault is noted when a write is refused for one and
 * forgotten when a write succeeds. /readyz reads it where the database cannot be asked without
 * writing (PostgreSQL's full disk), and forgets it after a while: an instance taken out of the
 * pool gets no more writes, and must be tried again to find the cause gone.
 */
import type { StorageFault } from '../store/engine/index.ts';

/** How long a fault met by a write keeps /readyz saying that writes cannot succeed. */
const REMEMBERED_MS = 30_000;

export class WriteHealth {
  private fault: { kind: StorageFault; at: number } | null = null;

  failed(kind: StorageFault): void {
    this.fault = { kind, at: Date.now() };
  }

  succeeded(): void {
    this.fault = null;
  }

  /** The fault a write met lately, if none has succeeded since. */
  recent(now = Date.now()): StorageFault | null {
    return this.fault && now - this.fault.at < REMEMBERED_MS ? this.fault.kind : null;
  }
}
