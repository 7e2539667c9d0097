export { DnsUpdateClient, DEFAULT_UPDATE_TIMEOUT_MS, type DnsUpdateClientOptions } from './rfc2136-client';
export { DnsUpdateError, type DnsUpdateFailure } from './dns-update-error';
export { signingKey, type SigningKey } from './tsig-key';
export type { DnsServer } from './tcp-exchange';
