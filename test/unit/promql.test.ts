import { metricNames, seriesSelectors } from '../support/promql';

describe('PromQL reading', () => {
  it('reads metric names out of PromQL', () => {
    expect(metricNames('histogram_quantile(0.95, sum by (le, route) (rate(cds_x_bucket{job="api",a=~"5.."}[5m]))) > 1')).toEqual(['cds_x_bucket']);
    expect(metricNames('absent(up{job="a"}) or max(b) / sum(increase(c_total[10m]))')).toEqual(['up', 'b', 'c_total']);
    expect(metricNames('min(x_seconds{job="checker"} > 0) - time() < 1e3')).toEqual(['x_seconds']);
  });

  it('keeps each selector with its matchers', () => {
    expect(seriesSelectors('sum(rate(a_total{job="api",status=~"5.."}[5m])) / sum(rate(a_total{job="api"}[5m])) + b{x="}"}')).toEqual([
      { name: 'a_total', selector: 'a_total{job="api",status=~"5.."}' },
      { name: 'a_total', selector: 'a_total{job="api"}' },
      { name: 'b', selector: 'b{x="}"}' },
    ]);
  });
});
