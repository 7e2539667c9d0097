// pebble-challtestsrv as the DNS the checker asks: TXT and CNAME records a
// test programs, on free loopback ports, with the challenge listeners off.
import { startTestDns, type TestDns } from '../../support/challtestsrv';

export { freePort } from '../../support/free-port';

export type CheckerDns = TestDns;

// Every name answers A 127.0.0.1 and no AAAA, so Pebble validates over IPv4 loopback.
export function startCheckerDns(): Promise<CheckerDns> {
  return startTestDns({ defaultIPv4: '127.0.0.1' });
}
