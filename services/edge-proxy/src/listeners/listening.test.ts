// The options both listeners give Node's HTTP server (DECISIONS §5).
import { listenerOptions } from './listening';

describe('listenerOptions', () => {
  it('caps headers at 16 KiB and gives a whole request EDGE_REQUEST_TIMEOUT', () => {
    expect(listenerOptions(10_000, 60_000)).toMatchObject({ headersTimeout: 10_000, requestTimeout: 60_000, maxHeaderSize: 16_384 });
  });

  it('never gives a request less time than its headers (Node refuses that)', () => {
    expect(listenerOptions(10_000, 5_000).requestTimeout).toBe(10_000);
  });
});
