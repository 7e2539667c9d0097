import type { CheckRow, CheckType } from '../types';

/** The order a domain's checks are listed in: the order the spec runs them. */
export const CHECK_ORDER: readonly CheckType[] = ['ownership', 'routing', 'certificate', 'origin'];

/** Sorts one domain's checks ownership → origin. */
export const byCheckOrder = (a: CheckRow, b: CheckRow): number => CHECK_ORDER.indexOf(a.type) - CHECK_ORDER.indexOf(b.type);
