// One HTTPS webhook receiver per application. Every POST is checked with the
// stripe package's webhook verifier (the service's signature header has
// Stripe's format: `t=<unix seconds>,v1=<hex>` over `<t>.<raw body>`, keyed
// with the whole `whsec_…` secret) against the subscription's secret, and
// recorded with the status answered (and the event's type and hostname). A
// receiver can be told to answer 500 for a while (a fault of the run).
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { TestCa } from '../support/webhook-receiver';
import type { ReceivedDelivery } from './invariants';

const stripe = new Stripe('sk_test_unused');

/** The fields of an event body the run reads. */
interface WebhookEvent {
  id: string;
  type?: string;
  data?: { domain?: { hostname?: string } };
}
/** The contract's five minutes. */
const TOLERANCE_SECONDS = 300;

export interface Receiver {
  name: string;
  url: string;
  /** The subscription's secret, once it is created. */
  secret: string | null;
  received: Array<ReceivedDelivery & { atMs: number; problem?: string }>;
  /** Answers 500 to everything until `failing` is false again. */
  failing: boolean;
  close(): Promise<void>;
}

export async function startReceiver(name: string, ca: TestCa, clock: () => number): Promise<Receiver> {
  const receiver: Receiver = { name, url: '', secret: null, received: [], failing: false, close: async () => undefined };
  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = String(req.headers['x-custom-domain-signature'] ?? '');
      let eventId = String(req.headers['x-custom-domain-event-id'] ?? '');
      let verified = false;
      let problem: string | undefined;
      let type: string | undefined;
      let hostname: string | undefined;
      try {
        const event = stripe.webhooks.constructEvent(body, header, receiver.secret ?? 'whsec_unknown', TOLERANCE_SECONDS) as unknown as WebhookEvent;
        verified = event.id === eventId;
        if (!verified) problem = `body id ${event.id} differs from the header's ${eventId}`;
        eventId = event.id;
        type = event.type;
        hostname = event.data?.domain?.hostname;
      } catch (err) {
        problem = err instanceof Error ? err.message : String(err);
      }
      const status = receiver.failing ? 500 : verified ? 200 : 400;
      receiver.received.push({ receiver: name, eventId, verified, status, atMs: clock(), ...(type ? { type } : {}), ...(hostname ? { hostname } : {}), ...(problem ? { problem } : {}) });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${name}`;
  receiver.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
}
