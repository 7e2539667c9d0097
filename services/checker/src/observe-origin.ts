// The origin check's probe: GET <active origin url><health_path> with the
// customer's hostname as Host and a fresh assertion (DECISIONS §2, §4).
import { ASSERTION_HEADER, decryptSecret, selectSigningKey, signAssertion, type OriginObservation } from '@cds/core';
import type { DataStore, DomainRow } from '@cds/data';
import { ORIGIN_PROBE_TIMEOUT_MS, probeOrigin, probeTarget } from '@cds/http';

export interface OriginProbeSettings {
  encryptionKey: Buffer;
  deploymentKey: { kid: string; secret: string };
  /** Trusted CAs for https origins (undefined: node's defaults). */
  ca: readonly string[] | undefined;
  timeoutMs?: number;
}

export async function observeOrigin(store: DataStore, domain: DomainRow, settings: OriginProbeSettings, now: Date): Promise<OriginObservation> {
  const found = await store.run(async (r) => {
    const origin = await r.origins.findActive(domain.applicationId);
    if (!origin) return null;
    return { origin, application: await r.applications.findById(domain.applicationId), keys: await r.assertionKeys.list(domain.applicationId) };
  });
  if (!found?.application) return { kind: 'no_active_origin' };
  const key = selectSigningKey(found.keys, settings.deploymentKey);
  const secret = 'secretSealed' in key ? decryptSecret(key.secretSealed, settings.encryptionKey) : key.secret;
  const assertion = await signAssertion({
    kid: key.kid, secret, slug: found.application.slug, domainId: domain.id, hostname: domain.hostname, reference: domain.reference, now,
  });
  const { url, healthPath } = found.origin;
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
