import { DnsUpdateError } from '../dns-update';
import { DnsChallengeWriter, type DnsUpdates } from './dns-challenge-writer';
import { IssuanceError } from './issuer';

const NAME = '0123456789abcdef0123456789abcdef.acme.edge.test';

/** A zone whose server answers a new record after `lagReads` reads. */
function zone(lagReads = 0): DnsUpdates & { records: Map<string, string[]>; calls: string[] } {
  const records = new Map<string, string[]>();
  const calls: string[] = [];
  let reads = 0;
  return {
    records, calls,
    async addTxt(name, value) {
      calls.push(`add ${value}`);
      records.set(name, [...(records.get(name) ?? []), value]);
    },
    async removeTxt(name, value) {
      calls.push(`remove ${value}`);
      records.set(name, (records.get(name) ?? []).filter((v) => v !== value));
    },
    async authoritativeTxt(name) {
      reads += 1;
      return reads > lagReads ? (records.get(name) ?? []) : [];
    },
  };
}

it('publishes, then resolves once the zone answers the value', async () => {
  const updates = zone(3);
  await new DnsChallengeWriter(updates, { pollMs: 1 }).publish(NAME, 'digest');
  expect(updates.records.get(NAME)).toEqual(['digest']);
  await new DnsChallengeWriter(updates).remove(NAME, 'digest');
  expect(updates.records.get(NAME)).toEqual([]);
});

it('says so when the zone never answers the record in time', async () => {
  const updates = { ...zone(), authoritativeTxt: async () => [] };
  await expect(new DnsChallengeWriter(updates, { pollMs: 1, visibleWithinMs: 20 }).publish(NAME, 'digest')).rejects.toThrow(/was written but its zone's server did not answer it within 0 s/);
});

it('the probe is a signed removal of a value no challenge has', async () => {
  const updates = zone();
  await new DnsChallengeWriter(updates).probe(NAME);
  expect(updates.calls).toEqual(['remove cds-update-probe']);
});

it('a refused update becomes the certificate check\'s message', async () => {
  const refused = new DnsUpdateError('tsig_refused', 'the DNS update server 127.0.0.1:53 refused the TSIG key cds-acme (BADSIG): ACME_DNS_TSIG_KEY does not match the key the zone acme.edge.test accepts');
  const updates = { ...zone(), removeTxt: async () => { throw refused; } };
  const error = await new DnsChallengeWriter(updates).probe(NAME).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(IssuanceError);
  expect(error).toMatchObject({ code: 'certificate_issuance_failed', message: `The DNS-01 challenge could not be written: ${refused.message}.` });
});
