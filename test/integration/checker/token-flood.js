// Random ACME tokens at a steady rate, from a child process of the test (so
// that the edge under test does not share its event loop):
//   node token-flood.js <port> <per second> <max seconds> <connections> <source addresses, comma separated>
// Each request is a GET of /.well-known/acme-challenge/<43 random base64url
// characters>, pipelined over keep-alive connections spread over the source
// addresses. Runs until the parent sends "stop" (or max seconds), then sends
// the parent { sent, seconds, answered: { <status>: count }, reconnects } and exits.
'use strict';
const net = require('node:net');
const { randomBytes } = require('node:crypto');
const { setInterval, clearInterval, setTimeout } = require('node:timers');

const [port, perSecond, maxSeconds, connections] = process.argv.slice(2, 6).map(Number);
const sources = process.argv[6].split(',');
const TICK_MS = 5;
/** Requests sent and not answered yet, past which sending pauses (the sent rate then shows it). */
const MAX_OUTSTANDING = 50_000;

const answered = {};
let answeredTotal = 0;
let reconnects = 0;
let stopping = false;

function connect(i) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress: sources[i % sources.length] });
  socket.setNoDelay(true);
  // A status line may be split across two chunks: the tail of the last one is kept.
  let tail = '';
  socket.on('data', (chunk) => {
    const text = tail + chunk.toString('latin1');
    const statusLine = /HTTP\/1\.1 (\d{3}) /g;
    let match;
    let end = 0;
    while ((match = statusLine.exec(text)) !== null) {
      answered[match[1]] = (answered[match[1]] || 0) + 1;
      answeredTotal += 1;
      end = statusLine.lastIndex;
    }
    tail = text.slice(Math.max(end, text.length - 16));
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (stopping) return;
    reconnects += 1;
    setTimeout(() => (sockets[i] = connect(i)), 10);
  });
  return socket;
}

const sockets = Array.from({ length: connections }, (_, i) => connect(i));
const started = Date.now();
let sent = 0;
let next = 0;

const timer = setInterval(() => {
  const elapsed = Date.now() - started;
  if (elapsed >= maxSeconds * 1000) return finish();
  const due = Math.floor((elapsed / 1000) * perSecond);
  if (due <= sent || sent - answeredTotal > MAX_OUTSTANDING) return;
  // One write per connection per tick, the requests of the tick spread over the connections.
  const batches = new Map();
  const tokens = randomBytes(32 * (due - sent));
  for (let k = 0; sent < due; sent += 1, k += 1) {
    const token = tokens.subarray(k * 32, k * 32 + 32).toString('base64url');
    const i = next;
    next = (next + 1) % connections;
    batches.set(i, (batches.get(i) || '') + `GET /.well-known/acme-challenge/${token} HTTP/1.1\r\nHost: flood.example\r\n\r\n`);
  }
  for (const [i, requests] of batches) if (sockets[i].writable) sockets[i].write(requests);
}, TICK_MS);

function finish() {
  if (stopping) return;
  stopping = true;
  clearInterval(timer);
  const seconds = (Date.now() - started) / 1000;
  for (const socket of sockets) socket.destroy();
  process.send({ sent, seconds, answered, reconnects }, () => process.exit(0));
}

process.on('message', (message) => {
  if (message === 'stop') finish();
});
