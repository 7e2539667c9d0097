// One DNS message and its answer over TCP (RFC 1035 §4.2.2, RFC 7766): each
// message preceded by its length in two bytes. TCP avoids truncation and lets
// a dead server show as a refused connection rather than silence.
import { connect } from 'node:net';
import { DnsUpdateError } from './dns-update-error';

export interface DnsServer {
  host: string;
  port: number;
}

export function serverLabel(server: DnsServer): string {
  return server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}

/** Sends `message` to `server` and resolves with the first answer; DnsUpdateError 'unreachable' on a connection error or after `timeoutMs`. */
export function tcpExchange(server: DnsServer, message: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const label = serverLabel(server);
    const socket = connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (outcome: { answer: Buffer } | { error: DnsUpdateError }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if ('answer' in outcome) resolve(outcome.answer);
      else reject(outcome.error);
    };
    const timer = setTimeout(() => finish({
      error: new DnsUpdateError('unreachable', `the DNS update server ${label} did not answer within ${timeoutMs} ms: check ACME_DNS_UPDATE_SERVER and that the server accepts DNS over TCP from this host`),
    }), timeoutMs);
    socket.on('connect', () => {
      const framed = Buffer.alloc(2 + message.length);
      framed.writeUInt16BE(message.length, 0);
      message.copy(framed, 2);
      socket.write(framed);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        finish({ answer: received.subarray(2, 2 + received.readUInt16BE(0)) });
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => finish({
      error: new DnsUpdateError('unreachable', `the DNS update server ${label} could not be reached (${err.code ?? err.message}): check ACME_DNS_UPDATE_SERVER and that the server accepts DNS over TCP from this host`),
    }));
    socket.on('end', () => finish({
      error: new DnsUpdateError('unreachable', `the DNS update server ${label} closed the connection without an answer: check ACME_DNS_UPDATE_SERVER`),
    }));
  });
}
