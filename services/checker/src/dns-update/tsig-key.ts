// ACME_DNS_TSIG_KEY, parsed and validated at start by libs/config, with its
// secret decoded: the key that signs the updates and checks the answers.
import type { TsigAlgorithm, TsigKey } from '@cds/config';

export interface SigningKey {
  /** The key's name, lowercase, without a trailing dot (as the server's `key` statement names it). */
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

export const signingKey = (key: TsigKey): SigningKey => ({ name: key.name, algorithm: key.algorithm, secret: Buffer.from(key.secret, 'base64') });
