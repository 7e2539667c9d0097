// Load generator of `make bench-edge-names` (test/bench/edge/names.sh).
//   flood <httpsPort> <httpPort> <seconds> <handshakesPerSecond> <hostsPerSecond>
//     new TLS handshakes with random SNI names, and plain-HTTP requests with
//     random Host names over keep-alive connections, each at its rate;
//   hot <httpPort> <seconds> <hostnames file> <rounds per second>
//     every hostname of the file (one a line) requested over plain HTTP,
//     keep-alive, the given number of times a second.
// Prints one "LOAD key=value ..." line: what was sent and how it was answered.
'use strict';
const http = require('node:http');
const tls = require('node:tls');
const { randomBytes } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { setInterval, clearInterval, setTimeout } = require('node:timers');

const TICK_MS = 10;
const randomName = () => `r${randomBytes(6).toString('hex')}.flood.example`;

/** Calls `send` `perSecond` times a second, spread over ticks, for `seconds`. */
function paced(perSecond, seconds, send) {
  return new Promise((resolve) => {
    const started = Date.now();
    let sent = 0;
    const timer = setInterval(() => {
      const elapsed = Date.now() - started;
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        resolve(sent);
        return;
      }
      const due = Math.floor((elapsed / 1000) * perSecond);
      for (; sent < due; sent += 1) send();
    }, TICK_MS);
  });
}

function counter() {
  return { sent: 0, answered: {}, errors: 0, inFlight: 0 };
}

function request(agent, port, host, stats) {
  stats.sent += 1;
  stats.inFlight += 1;
  const req = http.request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent }, (res) => {
    res.resume();
    res.on('end', () => {
      stats.inFlight -= 1;
      stats.answered[res.statusCode] = (stats.answered[res.statusCode] ?? 0) + 1;
    });
  });
  req.on('error', () => {
    stats.inFlight -= 1;
    stats.errors += 1;
  });
  req.end();
}

async function flood(httpsPort, httpPort, seconds, handshakesPerSecond, hostsPerSecond) {
  const handshakes = { sent: 0, refused: 0, accepted: 0 };
  const hosts = counter();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  await Promise.all([
    paced(handshakesPerSecond, seconds, () => {
      handshakes.sent += 1;
      const socket = tls.connect({ host: '127.0.0.1', port: httpsPort, servername: randomName(), rejectUnauthorized: false }, () => {
        handshakes.accepted += 1;
        socket.destroy();
      });
      socket.on('error', () => {
        handshakes.refused += 1;
      });
      socket.setTimeout(10_000, () => socket.destroy());
    }),
    paced(hostsPerSecond, seconds, () => request(agent, httpPort, randomName(), hosts)),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  agent.destroy();
  console.log(`LOAD handshakes=${handshakes.sent} refused=${handshakes.refused} accepted=${handshakes.accepted} hosts=${hosts.sent} host_answers=${JSON.stringify(hosts.answered)} host_errors=${hosts.errors}`);
}

async function hot(httpPort, seconds, file, roundsPerSecond) {
  const names = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const stats = counter();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const started = Date.now();
  await paced(names.length * roundsPerSecond, seconds, () => {
    // Past 20,000 requests waiting the edge (or this process) cannot keep up: skip rather than pile up.
    if (stats.inFlight > 20_000) return;
    request(agent, httpPort, names[next], stats);
    next = (next + 1) % names.length;
  });
  const elapsed = (Date.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  agent.destroy();
  const answered = Object.values(stats.answered).reduce((a, b) => a + b, 0);
  console.log(`LOAD sent=${stats.sent} answered=${answered} answers=${JSON.stringify(stats.answered)} errors=${stats.errors} per_second=${(answered / elapsed).toFixed(0)}`);
}

const [mode, ...args] = process.argv.slice(2);
const run = mode === 'flood'
  ? flood(Number(args[0]), Number(args[1]), Number(args[2]), Number(args[3]), Number(args[4]))
  : hot(Number(args[0]), Number(args[1]), args[2], Number(args[3]));
run.catch((err) => {
  console.error(err);
  process.exit(1);
});
