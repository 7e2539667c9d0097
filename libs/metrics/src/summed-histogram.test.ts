import { Histogram, Registry } from 'prom-client';
import { SummedHistogram } from './summed-histogram';

describe('SummedHistogram', () => {
  it('prints exactly what prom-client prints for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const buckets = [0.005, 0.05, 0.5, 5];
    const summed = new SummedHistogram('t_seconds', 'Time.', 'status_class', buckets, [ours]);
    const reference = new Histogram({ name: 't_seconds', help: 'Time.', labelNames: ['status_class'], buckets, registers: [theirs] });
    for (const [cls, v] of [['2xx', 0.001], ['2xx', 0.2], ['5xx', 9], ['2xx', 0.05], ['4xx', 0.004]] as const) {
      summed.observe(cls, v);
      reference.observe({ status_class: cls }, v);
    }
    const sorted = async (r: Registry) => (await r.metrics()).split('\n').sort();
    expect(await sorted(ours)).toEqual(await sorted(theirs));
  });

  it('forgets its series on reset', async () => {
    const registry = new Registry();
    const h = new SummedHistogram('u_seconds', 'U.', 'c', [1], [registry]);
    h.observe('a', 0.5);
    h.reset();
    expect(await registry.metrics()).not.toContain('u_seconds_count');
  });
});
