// The operator's calls (/operator/v1, DECISIONS §4) the demo makes, each
// printed as it goes. The typed client covers the operator's domain lookup
// only, so the set-up calls are plain JSON requests.
import { callJson } from './http-calls';

export interface Application {
  slug: string;
  name: string;
  status: string;
  plan: string;
  limits: Record<string, number>;
}

export interface Origin {
  id: string;
  url: string;
  health_path: string;
  status: string;
  last_verified_at: string | null;
}

export interface IssuedAssertionKey {
  kid: string;
  secret: string;
  status: string;
}

export interface IssuedCredential {
  id: string;
  name: string;
  prefix: string;
  secret: string;
}

export class OperatorApi {
  constructor(private readonly baseUrl: string, private readonly token: string) {}

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return callJson<T>(this.baseUrl, this.token, method, `/operator/v1${path}`, body);
  }

  createApplication(body: { slug: string; name: string; limits?: Record<string, number> }): Promise<Application> {
    return this.call('POST', '/applications', body);
  }

  registerOrigin(slug: string, body: { url: string; health_path: string }): Promise<Origin> {
    return this.call('POST', `/applications/${slug}/origins`, body);
  }

  verifyOrigin(slug: string, id: string): Promise<Origin> {
    return this.call('POST', `/applications/${slug}/origins/${id}/verify`);
  }

  activateOrigin(slug: string, id: string): Promise<Origin> {
    return this.call('POST', `/applications/${slug}/origins/${id}/activate`);
  }

  issueAssertionKey(slug: string): Promise<IssuedAssertionKey> {
    return this.call('POST', `/applications/${slug}/assertion-keys`, {});
  }

  issueCredential(slug: string, name: string): Promise<IssuedCredential> {
    return this.call('POST', `/applications/${slug}/credentials`, { name });
  }
}
