// How a PostgreSQL URL asks for TLS, read in one place: the configuration
// refuses at start what the data library would not know how to apply, and the
// data library turns it into the driver's TLS options (libs/data, database-url.ts).

/** The `sslmode` values a PostgreSQL URL may carry: libpq's, less `allow`, plus pg's `no-verify`. */
export const POSTGRES_SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
export type PostgresSslMode = (typeof POSTGRES_SSL_MODES)[number];

/** URL parameters naming certificate files that pg reads itself: with one of them the URL alone decides TLS. */
export const POSTGRES_CERTIFICATE_FILE_PARAMS = ['sslrootcert', 'sslcert', 'sslkey'] as const;

/** pg's older switch: `ssl=true` or `1` verifies like `verify-full`, `0` or `false` is `disable`. */
const SSL_FLAG: Readonly<Record<string, PostgresSslMode>> = { true: 'verify-full', 1: 'verify-full', false: 'disable', 0: 'disable', 'no-verify': 'no-verify' };

export class InvalidSslModeError extends Error {
  override readonly name = 'InvalidSslModeError';
  /** What is wrong, without the URL (which may carry a password): the configuration prefixes it with the variable's name. */
  readonly problem: string;

  constructor(param: 'sslmode' | 'ssl', given: string) {
    const allowed = param === 'sslmode' ? POSTGRES_SSL_MODES : Object.keys(SSL_FLAG);
    const problem = `has ${param}=${JSON.stringify(given)}, not one of ${allowed.join(', ')}`;
    super(`Database URL ${problem}.`);
    this.problem = problem;
  }
}

function isSslMode(text: string): text is PostgresSslMode {
  return (POSTGRES_SSL_MODES as readonly string[]).includes(text);
}

/** The TLS mode `url` asks for: its `sslmode`, else its `ssl` flag; null when it says nothing. Throws InvalidSslModeError. */
export function postgresSslMode(url: string): PostgresSslMode | null {
  const params = new URL(url).searchParams;
  const mode = params.get('sslmode');
  if (mode !== null) {
    if (!isSslMode(mode)) throw new InvalidSslModeError('sslmode', mode);
    return mode;
  }
  const flag = params.get('ssl');
  if (flag === null) return null;
  const fromFlag = SSL_FLAG[flag];
  if (fromFlag === undefined) throw new InvalidSslModeError('ssl', flag);
  return fromFlag;
}

/** Whether the URL names certificate files (sslrootcert, sslcert, sslkey) that pg reads itself. */
export function namesCertificateFiles(url: string): boolean {
  const params = new URL(url).searchParams;
  return POSTGRES_CERTIFICATE_FILE_PARAMS.some((name) => params.has(name));
}
