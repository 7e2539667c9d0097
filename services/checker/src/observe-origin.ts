// The origin check's probe: GET <active origin url><health_path> with the
// customer's hostname as Host and a fresh assertion (DECISIONS §2, §4).
import { ASSERTION_HEADER, decryptSecret, SEAL_PURPOSES, selectSigningKey, signAssertion, type DataKeys, type OriginObservation } from '@cds/core';
import type { ApplicationRow, AssertionKeyRow, DataStore, DomainRow, OriginRow } from '@cds/data';
import { ORIGIN_PROBE_TIMEOUT_MS, probeOrigin, probeTarget } from '@cds/outbound';

export interface OriginProbeSettings {
  encryptionKey: DataKeys;
  deploymentKey: { kid: string; secret: string };
  /** Trusted CAs for https origins (undefined: node's defaults). */
  ca: readonly string[] | undefined;
  timeoutMs?: number;
}

/** What probing an application's domains needs: its active origin and its assertion keys. Null without an active origin. */
export interface OriginContext {
  origin: OriginRow;
  application: ApplicationRow;
  keys: AssertionKeyRow[];
}

export async function loadOriginContext(store: DataStore, applicationId: string): Promise<OriginContext | null> {
  return store.run(async (r) => {
    const origin = await r.origins.findActive(applicationId);
    const application = origin ? await r.applications.findById(applicationId) : null;
    return origin && application ? { origin, application, keys: await r.assertionKeys.list(applicationId) } : null;
  });
}

export async function observeOrigin(context: OriginContext | null, domain: DomainRow, settings: OriginProbeSettings, now: Date): Promise<OriginObservation> {
  if (!context) return { kind: 'no_active_origin' };
  const key = selectSigningKey(context.keys, settings.deploymentKey);
  const secret = 'secretSealed' in key ? decryptSecret(key.secretSealed, settings.encryptionKey, { purpose: SEAL_PURPOSES.assertionKey, id: key.kid }) : key.secret;
  const assertion = await signAssertion({
    kid: key.kid, secret, slug: context.application.slug, domainId: domain.id, hostname: domain.hostname, reference: domain.reference, now,
  });
  const { url, healthPath } = context.origin;
  const result = await probeOrigin({
    url,
    path: healthPath,
    hostHeader: domain.hostname,
    headers: { [ASSERTION_HEADER]: assertion },
    timeoutMs: settings.timeoutMs ?? ORIGIN_PROBE_TIMEOUT_MS,
    ...(settings.ca ? { ca: settings.ca } : {}),
  });
  const target = probeTarget(url, healthPath).toString();
  return result.ok
    ? { kind: 'probed', target, ok: true, statusCode: result.statusCode }
    : { kind: 'probed', target, ok: false, reason: result.reason, message: result.message, ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}) };
}
