// The request target as the origin gets it (DECISIONS §5): always in
// origin-form, and never a path whose dot-segments climb above the root the
// client sees, which is the origin URL's own path once the edge prefixes it.
import { hostName } from '../listeners/edge-pages';

/** `..`, also percent-encoded in either case (`%2e%2e`, `.%2E`, …). */
const DOT_DOT = /^(?:\.|%2e){2}$/i;
/** `.`, also percent-encoded. */
const DOT = /^(?:\.|%2e)$/i;
/** Segment boundaries for the climb check: `/`, and the `\` and encoded slashes some origins take for one. */
const SEPARATOR = /\/|\\|%2f|%5c/i;
/** `http(s)://authority` then the rest of an absolute-form target. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)(.*)$/is;

/** True when the path's dot-segments would climb above its root (empty segments count as none, as origins that merge slashes read them). */
export function climbsAboveRoot(target: string): boolean {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  // Most paths hold no dot at all: nothing to walk.
  if (!path.includes('.') && !/%2e/i.test(path)) return false;
  let depth = 0;
  for (const segment of path.split(SEPARATOR)) {
    if (DOT_DOT.test(segment)) {
      if (depth === 0) return true;
      depth -= 1;
    } else if (segment !== '' && !DOT.test(segment)) {
      depth += 1;
    }
  }
  return false;
}

/**
 * The origin-form target for a request target in origin-form or absolute-form
 * sent with Host `host`; null when it must be refused (400): another form, an
 * absolute-form authority that names another host than Host, or a climb.
 */
export function originFormTarget(url: string, host: string | undefined): string | null {
  let target = url;
  if (!url.startsWith('/')) {
    const absolute = ABSOLUTE_FORM.exec(url);
    if (absolute === null) return null;
    const [, authority = '', rest = ''] = absolute;
    // Userinfo has no place in a request target (RFC 9110 §4.2.4).
    if (authority.includes('@') || hostName(authority) === null || hostName(authority) !== hostName(host)) return null;
    target = rest.startsWith('/') ? rest : `/${rest}`;
  }
  return climbsAboveRoot(target) ? null : target;
}
