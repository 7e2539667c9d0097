// Directories that failed at the CA's side are set aside for a pause
// (DECISIONS §14: 10 minutes): orders go to the others meanwhile. Kept in
// each checker's memory: a replica finds a CA's outage with its own first
// order, and a restart asks every directory again.

export const DIRECTORY_SET_ASIDE_MS = 10 * 60_000;

export class DirectorySetAside {
  private readonly until = new Map<string, number>();

  constructor(private readonly pauseMs = DIRECTORY_SET_ASIDE_MS) {}

  /** Sets the directory aside from `now` for the pause; returns when it ends. */
  setAside(directoryUrl: string, now: Date): Date {
    const until = now.getTime() + this.pauseMs;
    this.until.set(directoryUrl, until);
    return new Date(until);
  }

  /** When the directory's pause ends, while it lasts at `now`; null when it is not set aside. */
  setAsideUntil(directoryUrl: string, now: Date): Date | null {
    const until = this.until.get(directoryUrl);
    if (until === undefined) return null;
    if (until <= now.getTime()) {
      this.until.delete(directoryUrl);
      return null;
    }
    return new Date(until);
  }

  isSetAside(directoryUrl: string, now: Date): boolean {
    return this.setAsideUntil(directoryUrl, now) !== null;
  }
}
