export { AttemptsApi, CustomDomainClient, DeliveriesApi, DomainsApi, WebhooksApi, type CreateDomainOptions, type GetDomainOptions } from './client';
export { CustomDomainOperatorClient, OperatorDomainsApi, type LookupDomainOptions, type OperatorClientOptions } from './operator-client';
export { ApiError } from './api-error';
export type { ClientOptions, ConnectionOptions, FetchLike } from './transport';
export type * from './resources';
export type { paths, operations } from './openapi';
export {
  DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, verifyWebhook, WebhookVerificationError,
  type VerifyWebhookOptions, type WebhookHeaders, type WebhookVerificationReason,
} from './verify-webhook';
