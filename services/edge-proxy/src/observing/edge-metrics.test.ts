import { registry } from '@cds/metrics';
import { CHECK_REQUESTS_METRIC, CONNECTIONS_REFUSED_METRIC, edgeMetricsObserver } from './edge-metrics';

describe('edge metrics: refused connections', () => {
  it('shows every reason at zero from the start, then counts each refusal under its reason', async () => {
    const observer = edgeMetricsObserver();
    const values = async () => {
      const metric = await registry.getSingleMetric(CONNECTIONS_REFUSED_METRIC)?.get();
      return Object.fromEntries((metric?.values ?? []).map((v) => [v.labels.reason, v.value]));
    };
    expect(await values()).toEqual({ max_connections: 0, max_connections_per_client: 0, untrusted_peer: 0, proxy_header: 0 });
    observer.connectionRefused('max_connections');
    observer.connectionRefused('proxy_header');
    observer.connectionRefused('max_connections');
    expect(await values()).toEqual({ max_connections: 2, max_connections_per_client: 0, untrusted_peer: 0, proxy_header: 1 });
  });
});

describe('edge metrics: check requests', () => {
  it('shows both outcomes at zero from the start, then counts each publish under its outcome', async () => {
    const observer = edgeMetricsObserver();
    const values = async () => {
      const metric = await registry.getSingleMetric(CHECK_REQUESTS_METRIC)?.get();
      return Object.fromEntries((metric?.values ?? []).map((v) => [v.labels.outcome, v.value]));
    };
    expect(await values()).toEqual({ published: 0, failed: 0 });
    observer.checkRequested?.(true);
    observer.checkRequested?.(true);
    observer.checkRequested?.(false);
    expect(await values()).toEqual({ published: 2, failed: 1 });
  });
});
