// A tiny authoritative DNS server on 127.0.0.1 for tests: A records for the
// names it is given, NXDOMAIN for every other name. `silent` answers nothing
// (a resolver that times out).
import dgram from 'node:dgram';

export interface DnsResponder {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  server: string;
  close(): Promise<void>;
}

const TYPE_A = 1;
const RCODE_NXDOMAIN = 3;

/** The question name and where the question section ends. */
function question(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  for (let length = query.readUInt8(offset); length > 0; length = query.readUInt8(offset)) {
    labels.push(query.toString('ascii', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(offset + 1), end: offset + 5 };
}

function answer(query: Buffer, records: ReadonlyMap<string, string>): Buffer {
  const { name, type, end } = question(query);
  const address = records.get(name);
  const answers: Buffer[] = [];
  if (address && type === TYPE_A) {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // pointer to the question's name
    rr.writeUInt16BE(TYPE_A, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => rr.writeUInt8(Number(octet), 12 + i));
    answers.push(rr);
  }
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  const recursionDesired = query.readUInt8(2) & 0x01;
  header.writeUInt8(0x84 | recursionDesired, 2); // response, authoritative
  header.writeUInt8(address ? 0 : RCODE_NXDOMAIN, 3);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

export async function startDnsResponder(records: Record<string, string>, opts: { silent?: boolean } = {}): Promise<DnsResponder> {
  const names = new Map(Object.entries(records).map(([name, address]) => [name.toLowerCase(), address]));
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, peer) => {
    if (opts.silent || query.length < 17) return;
    socket.send(answer(query, names), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
