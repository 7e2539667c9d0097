// Reads one series out of this process's registry, as a scrape would see it.
import { registry } from '@cds/metrics';

/** The value of `name{labels}` (or of `name` alone when labels is ''); undefined when the series is absent. */
export async function sample(name: string, labels = ''): Promise<number | undefined> {
  const series = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
