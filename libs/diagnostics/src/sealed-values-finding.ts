import { FINDING_STATUSES as S, type Finding } from './check';

/** What a sample of one kind of sealed value gave with the configured keys. */
export interface SealedSample {
  kind: string;
  opened: number;
  unopened: number;
  /** Opened, but sealed with another key than the first or in an older format (`cdctl rekey` reseals them). */
  stale: number;
}

/**
 * Fail when a sample holds values no configured key opens, naming the kinds:
 * the key that sealed them is missing, and what they protect is lost without it.
 */
export function sealedValuesFinding(samples: readonly SealedSample[] | null): Finding {
  if (samples === null) return { status: S.warn, message: 'DATA_ENCRYPTION_KEY (or DATA_ENCRYPTION_KEYS) is not set here: the sealed values were not checked' };
  const failing = samples.filter((sample) => sample.unopened > 0);
  if (failing.length > 0) {
    const which = failing.map((sample) => `${sample.kind} (${sample.unopened} of ${sample.opened + sample.unopened} sampled)`).join(', ');
    return { status: S.fail, message: `no configured data encryption key opens ${which}: restore the key that sealed them (DATA_ENCRYPTION_KEYS)` };
  }
  const opened = samples.reduce((sum, sample) => sum + sample.opened, 0);
  if (opened === 0) return { status: S.ok, message: 'no sealed values stored yet' };
  const stale = samples.reduce((sum, sample) => sum + sample.stale, 0);
  const note = stale > 0 ? `; ${stale} sealed with an older key or format (\`cdctl rekey\` reseals them)` : '';
  return { status: S.ok, message: `the configured keys open all ${opened} sampled values${note}` };
}
