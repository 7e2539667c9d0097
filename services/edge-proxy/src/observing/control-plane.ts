// Whether the edge can reach its database right now, from the outcome of its
// cache loads and limiter reservations. While it cannot, the edge serves what
// it has cached; metrics and /readyz say so.
import { errorMessage } from '@cds/core';

export interface ControlPlaneState {
  reachable: boolean;
  /** When the current state began (ISO 8601). */
  since: string;
  lastError: string | null;
  /** Database accesses that failed since `since` (while unreachable: the edge keeps trying). */
  failures: number;
}

export class ControlPlaneHealth {
  private reachable = true;
  private since = new Date();
  private lastError: string | null = null;
  private failures = 0;

  constructor(private readonly onChange?: (state: ControlPlaneState) => void) {}

  /** One database access ended; `error` when it failed. */
  record(ok: boolean, error?: unknown): void {
    const changed = ok !== this.reachable;
    if (changed) {
      this.reachable = ok;
      this.since = new Date();
      this.failures = 0;
    }
    if (!ok) {
      this.lastError = errorMessage(error);
      this.failures += 1;
    }
    if (changed) this.onChange?.(this.state());
  }

  state(): ControlPlaneState {
    return { reachable: this.reachable, since: this.since.toISOString(), lastError: this.lastError, failures: this.failures };
  }
}
