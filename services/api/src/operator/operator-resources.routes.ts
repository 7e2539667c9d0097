import type { Config } from '@cds/config';
import { ORIGIN_PROBE_TIMEOUT_MS, trustedCasWithBundle } from '@cds/outbound';
import type { UseCaseContext } from '../shared/context';
import type { Route } from '../shared/mount';
import { assertionKeyRoutes } from './assertion-keys.routes';
import { certificateRenewalRoutes } from './certificate-renewal.routes';
import { domainLookupRoutes } from './domain-lookup.routes';
import { operatorTokenRoutes } from './operator-token.routes';
import { originRoutes } from './origins.routes';
import { trafficRoutes } from './traffic.routes';

/** Origins, assertion keys, traffic, the domain lookup, certificate renewal requests and the operator token; reads ORIGIN_CA_BUNDLE once, at start-up. */
export function operatorResourceRoutes(ctx: UseCaseContext, config: Config): Route[] {
  return [
    ...trafficRoutes(ctx),
    ...originRoutes(ctx, { ca: trustedCasWithBundle(config.originCaBundle), timeoutMs: ORIGIN_PROBE_TIMEOUT_MS }),
    ...assertionKeyRoutes(ctx, { dataEncryptionKey: config.dataEncryptionKey, deploymentKid: config.assertionDeploymentKid }),
    ...domainLookupRoutes(ctx, { acmeDirectoryUrl: config.acmeDirectories[0]?.url ?? '' }),
    ...certificateRenewalRoutes(ctx),
    ...operatorTokenRoutes(ctx),
  ];
}
