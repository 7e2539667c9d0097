// Domain status machine of the spec's "States and transitions" and DECISIONS.md §2.

export const DOMAIN_STATUSES = ['pending_dns', 'ready', 'attention_required', 'deleting'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];
/** The statuses of a live domain: a check run never sets `deleting`. */
export type LiveDomainStatus = Exclude<DomainStatus, 'deleting'>;

/** The four checks, in the order every `checks` array is written. */
export const CHECK_TYPES = ['ownership', 'routing', 'certificate', 'origin'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** Sorts checks into the order of CHECK_TYPES. */
export function byCheckType(a: { type: CheckType }, b: { type: CheckType }): number {
  return CHECK_TYPES.indexOf(a.type) - CHECK_TYPES.indexOf(b.type);
}

export const CHECK_STATUSES = ['pending', 'passing', 'failing'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** `error_code` values a failing check may carry (DECISIONS.md §2, "Check error codes"). */
export const CHECK_ERROR_CODES = {
  ownership: ['txt_record_not_found', 'txt_record_mismatch'],
  // address_*: apex domains routed by A and AAAA records (DECISIONS §12).
  routing: ['cname_not_found', 'cname_target_mismatch', 'address_not_found', 'address_mismatch'],
  certificate: ['certificate_issuance_failed', 'caa_forbids_issuance', 'certificate_expired'],
  origin: ['no_active_origin', 'origin_unreachable', 'origin_tls_error', 'origin_error_status'],
} as const;
export type CheckErrorCode<T extends CheckType = CheckType> = (typeof CHECK_ERROR_CODES)[T][number];

export const EVENT_TYPES = ['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Events a check run can cause; `domain.deleted` comes from DELETE only. */
export type CheckEventType = Exclude<EventType, 'domain.deleted'>;

export interface StatusTransition {
  status: DomainStatus;
  event: CheckEventType | null;
}

/** A live domain has no `deleted_at`; `deleting` is the only status a deleted domain has. */
export function isLive(status: DomainStatus): boolean {
  return status !== 'deleting';
}

/** A deleted domain cannot be rechecked (409 `invalid_status_transition`). */
export function canRecheck(status: DomainStatus): boolean {
  return status !== 'deleting';
}

/** The status after a check run and the event it emits, if any. */
export function nextStatus(current: DomainStatus, allPassing: boolean): StatusTransition {
  if (current === 'pending_dns' && allPassing) return { status: 'ready', event: 'domain.ready' };
  if (current === 'ready' && !allPassing) return { status: 'attention_required', event: 'domain.attention_required' };
  if (current === 'attention_required' && allPassing) return { status: 'ready', event: 'domain.recovered' };
  return { status: current, event: null };
}
