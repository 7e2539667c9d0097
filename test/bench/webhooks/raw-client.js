// The references of the webhook benchmark: the same signed POSTs the dispatcher
// sends (same body, same headers, a fresh HMAC per request) with the
// dispatcher's concurrency over keep-alive connections, and no bookkeeping.
//   mode `https`: Node's https.request, the plain client (the benchmark's reference);
//   mode `axios`: axios configured as the dispatcher configures it, to show what
//                 the HTTP client alone costs.
// Prints one JSON line: {"requests","seconds","rate","cpuMsPerRequest"}.
/* global AbortController */
'use strict';
const https = require('node:https');
const { readFileSync } = require('node:fs');
const tls = require('node:tls');
const { setTimeout, clearTimeout } = require('node:timers');
const axios = require('axios');
const { webhookSignatureHeader, WEBHOOK_USER_AGENT } = require('@cds/core');

const [mode, url, count, concurrency, caFile, secret, bodyFile] = process.argv.slice(2);
const total = Number(count);
const body = readFileSync(bodyFile, 'utf8');
const event = JSON.parse(body);
const secureContext = tls.createSecureContext({ ca: [...tls.rootCertificates, readFileSync(caFile, 'utf8')] });
const agent = new https.Agent({ keepAlive: true, maxSockets: Number(concurrency), secureContext });
const client = axios.create({
  httpsAgent: agent, maxRedirects: 0, proxy: false, decompress: false, responseType: 'stream',
  validateStatus: () => true, transformRequest: [], transformResponse: [],
});

const headers = () => ({
  'Content-Type': 'application/json',
  'User-Agent': WEBHOOK_USER_AGENT,
  'X-Custom-Domain-Signature': webhookSignatureHeader([secret], Math.floor(Date.now() / 1000), body),
  'X-Custom-Domain-Event': event.type,
  'X-Custom-Domain-Event-Id': event.id,
});

function postHttps() {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body, 'utf8');
    const req = https.request(url, { method: 'POST', agent, headers: { ...headers(), 'Content-Length': payload.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function postAxios() {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const res = await client.post(url, Buffer.from(body, 'utf8'), { headers: headers(), signal: controller.signal });
    for await (const chunk of res.data) void chunk;
    if (res.status < 200 || res.status >= 300) throw new Error(`status ${res.status}`);
  } finally {
    clearTimeout(timer);
  }
}

const post = mode === 'axios' ? postAxios : postHttps;

async function run(n) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next += 1;
      await post();
    }
  };
  await Promise.all(Array.from({ length: Number(concurrency) }, worker));
}

(async () => {
  await run(Math.min(500, total)); // warm-up: connections open, JIT warm
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await run(total);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  agent.destroy();
  process.stdout.write(`${JSON.stringify({ requests: total, seconds, rate: total / seconds, cpuMsPerRequest: (used.user + used.system) / 1000 / total })}\n`);
})().catch((err) => {
  console.error(`raw client failed: ${err.message}`);
  process.exit(1);
});
