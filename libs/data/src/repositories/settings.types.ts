// Deployment-wide key-value settings (operator token hash, CA and ACME account keys, fair-use notice claims).

export interface SettingsRepository {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  /** Writes the key only when it is absent, atomically across processes; true when this call wrote it. */
  setIfAbsent(key: string, value: string): Promise<boolean>;
  /** Replaces the value only while it is still `expected`, atomically across processes; true when this call replaced it. */
  replaceIf(key: string, expected: string, value: string): Promise<boolean>;
  /** Removes the key (no-op when absent). */
  delete(key: string): Promise<void>;
  /** Removes the key only while its value is still `expected`; true when this call removed it. */
  deleteIf(key: string, expected: string): Promise<boolean>;
}
