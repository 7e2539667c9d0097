// Pure parts of the fair-use notice: which month, whether the limit is passed,
// the settings key that makes the notice once per month, and the e-mail text.

/** 'YYYY-MM-DD' of the UTC day that contains `at`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** 'YYYY-MM' of the UTC month that contains `at`. */
export function utcMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** 'YYYY-MM-01': the first traffic day of the UTC month that contains `at`. */
export function monthStartDay(at: Date): string {
  return `${utcMonth(at)}-01`;
}

/** "Passes its limit": strictly more bytes than the plan allows. */
export function isOverFairUse(bytesUsed: number, limitBytes: number): boolean {
  return bytesUsed > limitBytes;
}

/** Settings key claimed by the one replica that sends the month's notice. */
export function fairUseNoticeKey(applicationId: string, month: string): string {
  return `fair_use_notice:${applicationId}:${month}`;
}

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** Decimal units as the plan states them (10 GB = 10 000 000 000 bytes). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  if (unit === 0) return `${bytes} bytes`;
  return `${Number(value.toFixed(2))} ${UNITS[unit]}`;
}

export interface FairUseNoticeInput {
  slug: string;
  name: string;
  month: string; // 'YYYY-MM'
  bytesUsed: number;
  limitBytes: number;
}

export interface FairUseMessage {
  subject: string;
  text: string;
}

export function fairUseMessage(input: FairUseNoticeInput): FairUseMessage {
  const used = `${formatBytes(input.bytesUsed)} (${input.bytesUsed} bytes)`;
  const limit = `${formatBytes(input.limitBytes)} (${input.limitBytes} bytes)`;
  return {
    subject: `Fair-use notice for ${input.slug}: ${formatBytes(input.bytesUsed)} served in ${input.month}`,
    text: [
      `Hello,`,
      ``,
      `Your application ${input.slug} (${input.name}) has served ${used} of responses through custom domains in ${input.month} (UTC),`,
      `which is more than the fair-use allowance of its plan: ${limit} per month.`,
      ``,
      `Nothing has been switched off: your domains keep being served as before.`,
      `This is the only notice for ${input.month}. If you expect this level of traffic to continue, please get in touch about a plan that fits it.`,
      ``,
    ].join('\n'),
  };
}
