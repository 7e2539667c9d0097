// How results are shown: raw JSON with --json, otherwise aligned tables and
// key/value summaries for people.

export type Row = Record<string, unknown>;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Columns padded to their widest cell; `(none)` for no rows. */
export function printTable(rows: readonly Row[], columns: readonly string[]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cells = rows.map((row) => columns.map((column) => text(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i]?.length ?? 0)));
  const line = (values: readonly string[]) => values.map((value, i) => value.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  process.stdout.write(`${[line(columns), ...cells.map(line)].join('\n')}\n`);
}

/** `key  value` lines; nested objects become `parent.key`. */
export function printRecord(record: Row): void {
  const entries: Array<[string, string]> = [];
  const walk = (value: Row, prefix: string) => {
    for (const [key, child] of Object.entries(value)) {
      if (child !== null && typeof child === 'object' && !Array.isArray(child)) walk(child as Row, `${prefix}${key}.`);
      else entries.push([`${prefix}${key}`, text(child)]);
    }
  };
  walk(record, '');
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  process.stdout.write(`${entries.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n')}\n`);
}

/** Prints `value` as JSON with --json, else as people read it. */
export function show(json: boolean, value: unknown, human: () => void): void {
  if (json) printJson(value);
  else human();
}
