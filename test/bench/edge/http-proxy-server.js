// The fourth proxy of `make bench-edge`: http-proxy, the forwarding library the
// design card named for the edge, in one Node.js process with nothing else.
// It terminates TLS with the bench certificate (TLS 1.2+, HTTP/1.1) and
// forwards every request to the bench origin over keep-alive connections (an
// idle pool of 64, like nginx's and Caddy's), keeping the client's Host as
// nginx does. No routing, limits, assertion or counting: the row shows what
// Node.js and http-proxy alone cost, beside the edge (Node.js and undici).
// Env: BENCH_PORT, BENCH_TLS_DIR (chain.pem, leaf.key), BENCH_ORIGIN_URL.
'use strict';
const { readFileSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const httpProxy = require('http-proxy');

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run test/bench/edge/run.sh)`);
  return value;
}

const port = Number(required('BENCH_PORT'));
const tlsDir = required('BENCH_TLS_DIR');
const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64, keepAliveMsecs: 300_000 });
const proxy = httpProxy.createProxyServer({ target: required('BENCH_ORIGIN_URL'), agent });
// An origin error is a 502 (the bench counts it), never a crash.
proxy.on('error', (_err, _req, res) => {
  if (res instanceof http.ServerResponse && !res.headersSent) res.writeHead(502).end();
  else res.destroy();
});

const server = https.createServer(
  {
    cert: readFileSync(path.join(tlsDir, 'chain.pem')),
    key: readFileSync(path.join(tlsDir, 'leaf.key')),
    minVersion: 'TLSv1.2',
    ALPNProtocols: ['http/1.1'],
    keepAliveTimeout: 300_000,
  },
  (req, res) => proxy.web(req, res),
);
server.listen(port, '127.0.0.1', () => console.log(`http-proxy ${require('http-proxy/package.json').version} on 127.0.0.1:${port}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
