// Application statuses (DECISIONS.md §4): a suspended application's API
// credentials get 403 and its domains answer 503.

export const APPLICATION_STATUSES = ['active', 'suspended'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];
