// Origin statuses (DECISIONS.md §4): verified by a health probe, at most one
// active per application, retired from any status.

export const ORIGIN_STATUSES = ['pending_verification', 'verified', 'active', 'retired'] as const;
export type OriginStatus = (typeof ORIGIN_STATUSES)[number];
