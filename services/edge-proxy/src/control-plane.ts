// Whether the edge can reach its database right now, from the outcome of its
// cache loads and limiter reservations. While it cannot, the edge serves what
// it has cached; metrics and /readyz say so.

export interface ControlPlaneState {
  reachable: boolean;
  /** When the current state began (ISO 8601). */
  since: string;
  lastError: string | null;
}

export class ControlPlaneHealth {
  private reachable = true;
  private since = new Date();
  private lastError: string | null = null;

  constructor(private readonly onChange?: (state: ControlPlaneState) => void) {}

  /** One database access ended; `error` when it failed. */
  record(ok: boolean, error?: unknown): void {
    if (!ok) this.lastError = error instanceof Error ? error.message : String(error);
    if (ok === this.reachable) return;
    this.reachable = ok;
    this.since = new Date();
    this.onChange?.(this.state());
  }

  state(): ControlPlaneState {
    return { reachable: this.reachable, since: this.since.toISOString(), lastError: this.lastError };
  }
}
