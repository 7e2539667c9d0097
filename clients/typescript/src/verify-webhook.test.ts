import { createHmac } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from './verify-webhook';

const SECRET = 'whsec_new-secret-new-secret-new-secret-0000000';
const OLD_SECRET = 'whsec_old-secret-old-secret-old-secret-0000000';
const T = 1_790_000_000;
const NOW = () => new Date(T * 1000);
const BODY = JSON.stringify({ id: '0b0f8a4e-4cf4-4a2b-9c1e-55b6d1c7f0a1', type: 'domain.deleted', created_at: '2026-09-21T10:13:20.000+00:00', data: { domain: {} } });

// The service's scheme (libs/core webhook-signature), written out independently.
const sign = (secret: string, t: number, body: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const header = (t: number, ...secrets: string[]) => [`t=${t}`, ...secrets.map((s) => `v1=${sign(s, t, BODY)}`)].join(',');

function refusal(run: () => unknown): WebhookVerificationReason {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError');
}

test('a good signature gives the event', () => {
  const event = verifyWebhook(BODY, { 'X-Custom-Domain-Signature': header(T, SECRET) }, SECRET, { now: NOW });
  expect(event).toMatchObject({ type: 'domain.deleted', id: '0b0f8a4e-4cf4-4a2b-9c1e-55b6d1c7f0a1' });
});

test('a header with two v1 values (the day after a rotation) verifies with either secret', () => {
  const both = header(T, SECRET, OLD_SECRET);
  expect(verifyWebhook(BODY, { 'x-custom-domain-signature': both }, SECRET, { now: NOW }).type).toBe('domain.deleted');
  expect(verifyWebhook(BODY, { 'x-custom-domain-signature': both }, OLD_SECRET, { now: NOW }).type).toBe('domain.deleted');
});

test('a receiver holding several secrets (rotation) accepts a delivery signed with any of them', () => {
  const headers = new Headers({ 'x-custom-domain-signature': header(T, OLD_SECRET) });
  expect(verifyWebhook(Buffer.from(BODY), headers, [SECRET, OLD_SECRET], { now: NOW }).type).toBe('domain.deleted');
});

test('a tampered body is refused', () => {
  const tampered = BODY.replace('domain.deleted', 'domain.ready');
  expect(refusal(() => verifyWebhook(tampered, { 'x-custom-domain-signature': header(T, SECRET) }, SECRET, { now: NOW }))).toBe('no_matching_signature');
});

test('the wrong secret is refused', () => {
  expect(refusal(() => verifyWebhook(BODY, { 'x-custom-domain-signature': header(T, OLD_SECRET) }, SECRET, { now: NOW }))).toBe('no_matching_signature');
});

test('a timestamp more than five minutes away either way is refused; within it is accepted', () => {
  const at = (t: number) => () => verifyWebhook(BODY, { 'x-custom-domain-signature': header(t, SECRET) }, SECRET, { now: NOW });
  expect(refusal(at(T - 301))).toBe('timestamp_out_of_tolerance');
  expect(refusal(at(T + 301))).toBe('timestamp_out_of_tolerance');
  expect(at(T - 300)().type).toBe('domain.deleted');
  expect(verifyWebhook(BODY, { 'x-custom-domain-signature': header(T - 500, SECRET) }, SECRET, { now: NOW, toleranceSeconds: 600 }).type).toBe('domain.deleted');
});

test('a missing or malformed header, or no secret, is refused with its own reason', () => {
  expect(refusal(() => verifyWebhook(BODY, {}, SECRET, { now: NOW }))).toBe('missing_signature');
  expect(refusal(() => verifyWebhook(BODY, { 'x-custom-domain-signature': `v1=${sign(SECRET, T, BODY)}` }, SECRET, { now: NOW }))).toBe('malformed_signature');
  expect(refusal(() => verifyWebhook(BODY, { 'x-custom-domain-signature': `t=${T},v1=abc` }, SECRET, { now: NOW }))).toBe('malformed_signature');
  expect(refusal(() => verifyWebhook(BODY, { 'x-custom-domain-signature': header(T, SECRET) }, [], { now: NOW }))).toBe('no_secrets');
});
