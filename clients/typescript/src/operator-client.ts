// A typed client of the operator API's domain lookup (/operator/v1/domains):
// what a support tool needs to see why a tenant's hostname is not served.
import type { DomainLookup } from './resources';
import { Transport, type ConnectionOptions } from './transport';

export interface OperatorClientOptions extends ConnectionOptions {
  /** The operator token (`OPERATOR_TOKEN`, or the one set by `PUT /operator/v1/token`). */
  operatorToken: string;
}

export interface LookupDomainOptions {
  /** When no domain of the hostname is live, the one deleted last (404 `domain_not_found` otherwise). */
  includeDeleted?: boolean;
}

export class OperatorDomainsApi {
  constructor(private readonly transport: Transport) {}

  /**
   * `GET /operator/v1/domains/{hostname}`: the live domain of a hostname, whatever its application, with the
   * application's slug, the certificate and the last check runs (newest first). The hostname is normalized as at
   * registration (case, a trailing dot, Unicode).
   */
  lookup(hostname: string, options: LookupDomainOptions = {}): Promise<DomainLookup> {
    return this.transport.request({
      method: 'GET', path: `/operator/v1/domains/${encodeURIComponent(hostname)}`, query: { include_deleted: options.includeDeleted },
    });
  }
}

/** `new CustomDomainOperatorClient({ baseUrl, operatorToken })`: every method throws ApiError on a non-2xx answer. */
export class CustomDomainOperatorClient {
  readonly domains: OperatorDomainsApi;

  constructor(options: OperatorClientOptions) {
    this.domains = new OperatorDomainsApi(new Transport(options, options.operatorToken, 'operatorToken'));
  }
}
