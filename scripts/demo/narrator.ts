// How the demo talks: numbered steps in plain words, each HTTP call on one
// line (method, path, short body, status), and live lines from the origin and
// the webhook receiver as things reach them.

const tty = process.stdout.isTTY === true;
const paint = (code: string) => (text: string) => (tty ? `\u001b[${code}m${text}\u001b[0m` : text);
export const bold = paint('1');
export const dim = paint('2');
export const green = paint('32');
export const red = paint('31');
export const cyan = paint('36');

const INDENT = '   ';
const started = Date.now();
let stepNumber = 0;

export function line(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** Text indented under the current step. */
export function say(text: string): void {
  for (const piece of text.split('\n')) line(`${INDENT}${piece}`);
}

export function title(text: string): void {
  line(bold(text));
}

/** A numbered step: who acts, and what. */
export function step(who: string, what: string): void {
  stepNumber += 1;
  line();
  line(`${bold(`${stepNumber}. ${who}`)} ${what}`);
}

/** A heading without a number. */
export function section(text: string): void {
  line();
  line(bold(text));
}

/** At most `max` characters: a short body for one line. */
export function short(text: string, max = 110): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** One HTTP call as it went: `POST /v1/domains {"hostname":…} → 201`. */
export function httpCall(method: string, path: string, body: string | undefined, status: number): void {
  const shown = body ? ` ${dim(short(body, 100))}` : '';
  const outcome = status >= 200 && status < 300 ? green(`→ ${status}`) : red(`→ ${status}`);
  say(`${cyan(method)} ${path}${shown} ${outcome}`);
}

/** What came back, under the call. */
export function answer(text: string): void {
  say(`  ${text}`);
}

/** A line from a server the demo runs (the origin, the webhook receiver), when it happens. */
export function heard(who: string, text: string): void {
  line(`${INDENT}${dim(`[${who}]`)} ${text}`);
}

/** Seconds since the demo started, or since `since`. */
export function elapsed(since = started): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

export function ok(text: string): void {
  line(`  ${green('✔')} ${text}`);
}

export function failed(text: string): void {
  line();
  line(`${red('✖ The demo failed:')} ${text}`);
}
