// Which failed ACME orders count against a hostname's failed validations.
// When the CA's HTTP-01 request got the answer our own edge gives when it
// cannot look a token up for a moment (503: overloaded, database away), the
// order failed because of us, not because of the hostname: counting it would
// let a flood of random tokens at the edge use up the hostname's hourly
// failures. The CA names the status it received in its problem detail:
//   Pebble:      "Non-200 status code from HTTP: <url> returned 503"
//   Boulder (Let's Encrypt): "Invalid response from <url> [<address>]: 503"
//     (older releases leave out the address; a second perspective's failure
//     is prefixed "During secondary validation: ").

/** What our edge's HTTP-01 responder answers when it cannot look a token up for a moment. */
export const EDGE_UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([503]);

const STATUS_IN_DETAIL = [
  /Non-200 status code from HTTP: (\S+) returned (\d{3})\b/g,
  /Invalid response from (\S+?)(?: \[[^\]]*\])?: (\d{3})\b/g,
];

const CHALLENGE_PATH = '/.well-known/acme-challenge/';

/** The host of an http(s) URL, lower case, without its port; null when it is not one. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The statuses the CA says `hostname`'s HTTP-01 URL answered, in the order
 * its problem detail names them (several perspectives may be named); empty
 * when it names none (a connection, DNS or content failure).
 */
export function http01StatusesInProblem(detail: string, hostname: string): number[] {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const found: Array<{ at: number; status: number }> = [];
  for (const pattern of STATUS_IN_DETAIL) {
    for (const match of detail.matchAll(pattern)) {
      const [, url, status] = match as unknown as [string, string, string];
      if (url.includes(CHALLENGE_PATH) && hostOf(url) === host) found.push({ at: match.index ?? 0, status: Number(status) });
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.status);
}

/**
 * False when the CA's validation of `hostname` failed only on answers our
 * edge gives while it cannot look a token up (every status the detail names
 * is one of EDGE_UNAVAILABLE_STATUSES); true for any other failure.
 */
export function failureCountsAgainstHostname(detail: string, hostname: string): boolean {
  const statuses = http01StatusesInProblem(detail, hostname);
  return statuses.length === 0 || !statuses.every((status) => EDGE_UNAVAILABLE_STATUSES.has(status));
}
