// ACME HTTP-01 challenges the edges answer (migration 1760000000300).

export interface AcmeChallengeRow {
  token: string;
  hostname: string;
  keyAuthorization: string;
  createdAt: Date;
}

export interface AcmeChallengesRepository {
  find(token: string): Promise<AcmeChallengeRow | null>;
  /**
   * Token → key authorization of every challenge, newest first, at most
   * `limit` (the edges keep them all in memory: rows live while their order is
   * validated, an hour at most).
   */
  keyAuthorizations(limit: number): Promise<Map<string, string>>;
  save(row: AcmeChallengeRow): Promise<void>;
  delete(token: string): Promise<void>;
  /** Removes challenges created before `before` (orders that never cleaned up); returns how many. */
  deleteOlderThan(before: Date): Promise<number>;
  /** Removes challenges whose hostname has no live (undeleted) domain (background clean-up); returns how many. */
  deleteWithoutLiveDomain(): Promise<number>;
}
