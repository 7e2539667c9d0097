// Answers written straight to a socket, where Node's HTTP server gives no
// ServerResponse: malformed request heads and refused upgrades.
import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long a socket that got a raw answer may stay open for the client to read it and close its side. */
const RAW_ANSWER_LINGER_MS = 5_000;

/** Ends the connection after what is already written; nothing more is read from it. */
function endConnection(socket: Duplex, last = ''): void {
  socket.end(last);
  // Drop what the client still sends, and the socket itself if the client never closes its side.
  socket.resume();
  setTimeout(() => socket.destroy(), RAW_ANSWER_LINGER_MS).unref();
}

/** A raw HTTP answer on a socket that has no ServerResponse (parse errors, refused upgrades). */
export function rawAnswer(socket: Duplex, status: number, reason: string, text: string, extra = ''): void {
  if (!socket.writable) return void socket.destroy();
  endConnection(socket, `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${extra}connection: close\r\n\r\n${text}`);
}

/** The response Node's HTTP server has under way on a connection, from its own bookkeeping. */
function responseUnderWay(socket: Duplex): ServerResponse | null {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/** Malformed request heads never reach a handler: answer what can be answered, then close. `server` serves HTTP/1.1 (alone or beside HTTP/2). */
export function answerClientErrors(server: EventEmitter): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const code = err.code ?? '';
    if (code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    // The error came after the head (a bad body, a refused framing): that request's answer has begun,
    // and a second status line would corrupt it. The connection ends after what was written.
    if (responseUnderWay(socket)?.headersSent) return endConnection(socket);
    if (code === 'HPE_HEADER_OVERFLOW') return rawAnswer(socket, 431, 'Request Header Fields Too Large', 'Request headers too large.\n');
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return rawAnswer(socket, 408, 'Request Timeout', 'Request timed out.\n');
    rawAnswer(socket, 400, 'Bad Request', 'Malformed request.\n');
  });
}
