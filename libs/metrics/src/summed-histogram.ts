// A histogram with one label whose observe() is a few array writes: for the
// edge, which observes every proxied request. prom-client's Histogram hashes
// its label set on each observation, a visible share of a request's CPU time.
// It registers like any prom-client metric and prints the same exposition.
import type { Registry } from 'prom-client';

interface Series {
  counts: number[];
  sum: number;
  count: number;
}

export class SummedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: string,
    private readonly buckets: readonly number[],
    registers: Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as never);
  }

  observe(labelValue: string, value: number): void {
    let series = this.series.get(labelValue);
    if (!series) this.series.set(labelValue, (series = { counts: new Array<number>(this.buckets.length).fill(0), sum: 0, count: 0 }));
    const { buckets } = this;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) {
        series.counts[i]! += 1;
        break;
      }
    }
    series.sum += value;
    series.count += 1;
  }

  /** prom-client's shape: cumulative `_bucket` lines with `le`, then `_sum` and `_count`, per label value. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> } {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const [labelValue, series] of this.series) {
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le, [this.labelName]: labelValue }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', [this.labelName]: labelValue }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { [this.labelName]: labelValue }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.labelName]: labelValue }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
