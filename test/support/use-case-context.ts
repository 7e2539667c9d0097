// The context the API's use cases run in, for their unit tests over a fake
// store: a clock the test sets (`at`) and a count of the commits that would
// have woken the outbox relay.
import type { UseCaseContext } from '../../services/api/src/shared/context';
import type { FakeStore } from './fake-store';

export interface TestUseCaseContext extends UseCaseContext {
  /** What `now()` answers; a test moves it. */
  at: Date;
  /** Commits that wrote outbox rows (calls of afterCommit). */
  commits: number;
}

/** No deployment domain limit, no edge addresses (apex domains refused), no ACME DNS zone unless `options` says otherwise. */
export function useCaseContext(store: FakeStore, at: Date, options: Partial<Pick<UseCaseContext, 'deploymentDomainLimit' | 'edgeAddresses' | 'acmeDnsZone'>> = {}): TestUseCaseContext {
  const ctx: TestUseCaseContext = {
    store,
    edgeTarget: 'edge.example.net',
    edgeAddresses: options.edgeAddresses ?? [],
    acmeDnsZone: options.acmeDnsZone ?? null,
    deploymentDomainLimit: options.deploymentDomainLimit ?? 0,
    at,
    commits: 0,
    now: () => ctx.at,
    afterCommit: () => {
      ctx.commits += 1;
    },
  };
  return ctx;
}
