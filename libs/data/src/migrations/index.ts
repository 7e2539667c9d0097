import { concurrentIndexesOf, type ConcurrentIndex } from './concurrent-index';
import { InitialSchema1760000000000 } from './1760000000000-initial-schema';
import { OriginsAssertionKeysTraffic1760000000100 } from './1760000000100-origins-assertion-keys-traffic';
import { Webhooks1760000000200 } from './1760000000200-webhooks';
import { Checker1760000000300 } from './1760000000300-checker';
import { LiveDomainCounter1760000000400 } from './1760000000400-live-domain-counter';
import { OutboxSetAside1760000000500 } from './1760000000500-outbox-set-aside';
import { Housekeeping1760000000600 } from './1760000000600-housekeeping';
import { WebhookFairness1760000000700 } from './1760000000700-webhook-fairness';
import { EdgeChangeFeed1760000000800 } from './1760000000800-edge-change-feed';
import { DomainLivePages1760000000900 } from './1760000000900-domain-live-pages';
import { CheckerHotUpdates1760000000950 } from './1760000000950-checker-hot-updates';
import { CheckConfirmation1760000001000 } from './1760000001000-check-confirmation';
import { DomainRedirect1795843440000 } from './1795843440000-domain-redirect';
import { AcmeOrders1795843500000 } from './1795843500000-acme-orders';
import { WebhookRecentFailures1795843800000 } from './1795843800000-webhook-recent-failures';
import { EdgeFeedCommitOrder1795843860000 } from './1795843860000-edge-feed-commit-order';
import { AcmeDirectories1795844000000 } from './1795844000000-acme-directories';
import { CertificateRenewRequests1795844100000 } from './1795844100000-certificate-renew-requests';

/** Every migration, oldest first. Listed by hand: nothing is discovered from dist/. */
export const MIGRATIONS = [InitialSchema1760000000000, OriginsAssertionKeysTraffic1760000000100, Webhooks1760000000200, Checker1760000000300, LiveDomainCounter1760000000400, OutboxSetAside1760000000500, Housekeeping1760000000600, WebhookFairness1760000000700, EdgeChangeFeed1760000000800, DomainLivePages1760000000900, CheckerHotUpdates1760000000950, CheckConfirmation1760000001000, DomainRedirect1795843440000, AcmeOrders1795843500000, WebhookRecentFailures1795843800000, EdgeFeedCommitOrder1795843860000, AcmeDirectories1795844000000, CertificateRenewRequests1795844100000];

/** The indexes PostgreSQL builds concurrently after a run, of every migration, in order. */
export const declaredConcurrentIndexes = (): ConcurrentIndex[] => concurrentIndexesOf(MIGRATIONS.map((M) => new M()));
