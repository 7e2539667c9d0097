// The readable form of a log entry, for a person at a terminal (LOG_FORMAT):
// time, level, service and message, then the fields as key=value. Pure, so
// the form is tested without a terminal; create-logger decides when it is used.

/** An entry as winston hands it over, secrets already redacted. */
export interface LogEntry {
  /** ISO 8601, as winston's timestamp format writes it. */
  readonly timestamp?: string;
  readonly level: string;
  readonly service?: string;
  readonly message?: unknown;
  /** An Error's stack, when an Error was logged. */
  readonly stack?: unknown;
  readonly [field: string]: unknown;
}

export interface PrettyOptions {
  /** ANSI colours: the level by its severity, time and field names dimmed. */
  readonly colour: boolean;
}

const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const LEVEL_COLOURS: Readonly<Record<string, string>> = {
  error: '\x1b[31m', // red
  warn: '\x1b[33m', // yellow
  info: '\x1b[32m', // green
  http: '\x1b[36m', // cyan
  verbose: '\x1b[34m', // blue
  debug: '\x1b[35m', // magenta
  silly: DIM,
};
/** The widest of the common levels (`error`, `debug`): the messages start in one column. */
const LEVEL_WIDTH = 5;
/** Written in columns of their own, not as fields. */
const OWN_COLUMNS = new Set(['timestamp', 'level', 'service', 'message', 'stack']);

/** One line (an Error's stack follows on indented lines). */
export function prettyLine(entry: LogEntry, opts: PrettyOptions): string {
  const paint = (code: string | undefined, text: string) => (opts.colour && code ? `${code}${text}${RESET}` : text);
  const head = [
    paint(DIM, clockTime(entry.timestamp)),
    paint(LEVEL_COLOURS[entry.level], entry.level.padEnd(LEVEL_WIDTH)),
    entry.service ?? '-',
    escapeControls(typeof entry.message === 'string' ? entry.message : formatValue(entry.message ?? '')),
  ];
  const fields = Object.entries(entry)
    .filter(([key, value]) => !OWN_COLUMNS.has(key) && value !== undefined)
    .map(([key, value]) => `${paint(DIM, `${key}=`)}${formatValue(value)}`);
  const line = [...head, ...fields].join(' ');
  if (typeof entry.stack !== 'string') return line;
  // The stack's first line repeats the message; the frames are what a reader wants.
  const frames = entry.stack.split('\n').slice(1).map((frame) => paint(DIM, `    ${escapeControls(frame.trim())}`));
  return [line, ...frames].join('\n');
}

/** `HH:MM:SS.mmm` in the machine's time zone: the clock of the person reading. */
function clockTime(timestamp: string | undefined): string {
  const at = timestamp === undefined ? new Date(Number.NaN) : new Date(timestamp);
  if (Number.isNaN(at.getTime())) return timestamp ?? '--:--:--.---';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}

/** Strings bare unless they hold spaces, quotes, `=` or control characters (then JSON-quoted); objects as compact JSON. */
function formatValue(value: unknown): string {
  if (typeof value === 'string') return value === '' || /[\s"'=\\\p{Cc}]/u.test(value) ? JSON.stringify(value) : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return escapeControls(JSON.stringify(value));
  } catch {
    return '[unserializable]';
  }
}

/** A message or value never moves the cursor or recolours the terminal: control characters are shown escaped. */
function escapeControls(text: string): string {
  return text.replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1));
}
