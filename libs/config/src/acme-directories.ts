// ACME_DIRECTORY_URL is a comma list of directories in order of preference
// (DECISIONS §14). What belongs to the directory in position n (1-based) comes
// in numbered variables: External Account Binding credentials
// (ACME_EAB_KID_<n>, ACME_EAB_HMAC_KEY_<n>, both or neither) and the CA's
// identities for CAA (ACME_CAA_IDENTITY_<n>). They are read and checked with
// the list, at start.
import { ConfigError } from './config-error';
import { InvalidValueError } from './invalid-value';
import { parseHostname } from './network-parsers';
import { tokenParser, urlParser } from './value-parsers';

/** External Account Binding credentials a CA gave (ZeroSSL, Google Trust Services). */
export interface ExternalAccountBinding {
  readonly kid: string;
  /** base64url, as the CA gives it. */
  readonly hmacKey: string;
}

export interface AcmeDirectorySettings {
  readonly url: string;
  /** null: the CA does not ask for External Account Binding. */
  readonly eab: ExternalAccountBinding | null;
  /** ACME_CAA_IDENTITY_<n>; null: what the directory lists, else the well-known identity of its host. */
  readonly caaIdentities: readonly string[] | null;
}

/** A numbered variable as the documentation shows it. */
export interface NumberedVariableDoc {
  readonly name: string;
  readonly default: string;
  readonly description: string;
}

export const ACME_NUMBERED = {
  eabKid: 'ACME_EAB_KID_',
  eabHmacKey: 'ACME_EAB_HMAC_KEY_',
  caaIdentity: 'ACME_CAA_IDENTITY_',
} as const;

export const ACME_NUMBERED_DOCS: readonly NumberedVariableDoc[] = [
  {
    name: `${ACME_NUMBERED.eabKid}<n>`,
    default: 'unset',
    description:
      'External Account Binding key id for the directory in position `n` (1-based) of `ACME_DIRECTORY_URL`, as the CA gives it (ZeroSSL, Google Trust Services). Set with `ACME_EAB_HMAC_KEY_<n>` or not at all.',
  },
  {
    name: `${ACME_NUMBERED.eabHmacKey}<n>`,
    default: 'unset',
    description:
      'External Account Binding HMAC key (base64url, as the CA gives it) for the directory in position `n` of `ACME_DIRECTORY_URL`; a secret. Set with `ACME_EAB_KID_<n>` or not at all.',
  },
  {
    name: `${ACME_NUMBERED.caaIdentity}<n>`,
    default: "what the directory lists in `meta.caaIdentities`, else its host's well-known identity (`letsencrypt.org`, `sectigo.com`, `pki.goog`, …)",
    description:
      'Comma list of the CAA issuer domains of the CA behind the directory in position `n` of `ACME_DIRECTORY_URL`: a CAA record that allows only some of the directories sends the order to one it allows.',
  },
];

const parseDirectoryUrl = urlParser(['https:', 'http:']);
const parseKid = tokenParser(256);

/** ACME_DIRECTORY_URL: one or more directory URLs, comma separated, no repeats. */
export function parseAcmeDirectoryUrls(text: string): AcmeDirectorySettings[] {
  const urls = text.split(',').map((part) => part.trim());
  if (urls.some((url) => url === '')) throw new InvalidValueError('must be one or more directory URLs separated by commas');
  for (const url of urls) {
    try {
      parseDirectoryUrl(url);
    } catch (err) {
      // One directory is told as before a list was possible.
      if (urls.length === 1) throw err;
      throw new InvalidValueError(`must list https:// or http:// URLs (${JSON.stringify(url)} is not one)`);
    }
  }
  const repeated = urls.find((url, i) => urls.indexOf(url) !== i);
  if (repeated) throw new InvalidValueError(`lists ${repeated} twice`);
  return urls.map((url) => ({ url, eab: null, caaIdentities: null }));
}

/** An HMAC key as CAs give it: base64url (padding tolerated) of at least 16 bytes. */
function parseHmacKey(text: string): string {
  const ok = /^[A-Za-z0-9_-]+={0,2}$/.test(text) && Buffer.from(text, 'base64url').length >= 16;
  if (!ok) throw new InvalidValueError('must be base64url text of at least 16 bytes, as the CA gave it');
  return text;
}

function parseCaaIdentities(text: string): string[] {
  const identities = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (identities.length === 0) throw new InvalidValueError('must be a comma list of CAA issuer domains, such as letsencrypt.org');
  return identities.map((identity) => {
    try {
      return parseHostname(identity);
    } catch {
      throw new InvalidValueError(`must be a comma list of CAA issuer domains (${JSON.stringify(identity)} is not one)`);
    }
  });
}

/** The value of a numbered variable, trimmed; empty counts as unset. */
const valueOf = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

function parseNumbered<T>(name: string, text: string, parse: (text: string) => T, secret = false): T {
  try {
    return parse(text);
  } catch (err) {
    if (!(err instanceof InvalidValueError)) throw err;
    throw new ConfigError(name, secret ? err.message : `${err.message} (got ${JSON.stringify(text.slice(0, 80))})`);
  }
}

/**
 * The directories with their numbered variables read from `env`. Throws
 * ConfigError for a key id without its HMAC key (or the other way round), a
 * value that does not parse, and a number past the end of the list.
 */
export function withNumberedAcmeSettings(directories: readonly AcmeDirectorySettings[], env: NodeJS.ProcessEnv): AcmeDirectorySettings[] {
  const prefixes = Object.values(ACME_NUMBERED);
  for (const name of Object.keys(env).sort()) {
    const prefix = prefixes.find((p) => name.startsWith(p));
    if (!prefix || valueOf(env, name) === undefined) continue;
    const position = name.slice(prefix.length);
    if (!/^[1-9]\d*$/.test(position)) throw new ConfigError(name, 'must end in the position of a directory of ACME_DIRECTORY_URL, counted from 1');
    if (Number(position) > directories.length) {
      throw new ConfigError(name, `names directory ${position}, but ACME_DIRECTORY_URL lists ${directories.length}`);
    }
  }
  return directories.map((directory, i) => {
    const n = i + 1;
    const kidName = `${ACME_NUMBERED.eabKid}${n}`;
    const keyName = `${ACME_NUMBERED.eabHmacKey}${n}`;
    const identityName = `${ACME_NUMBERED.caaIdentity}${n}`;
    const kid = valueOf(env, kidName);
    const hmacKey = valueOf(env, keyName);
    if ((kid === undefined) !== (hmacKey === undefined)) {
      const [set, unset] = kid === undefined ? [keyName, kidName] : [kidName, keyName];
      throw new ConfigError(unset, `is required when ${set} is set (External Account Binding takes both)`);
    }
    const identities = valueOf(env, identityName);
    return {
      url: directory.url,
      eab: kid !== undefined && hmacKey !== undefined
        ? { kid: parseNumbered(kidName, kid, parseKid), hmacKey: parseNumbered(keyName, hmacKey, parseHmacKey, true) }
        : null,
      caaIdentities: identities === undefined ? null : parseNumbered(identityName, identities, parseCaaIdentities),
    };
  });
}
