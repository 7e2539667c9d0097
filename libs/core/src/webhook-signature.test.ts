import { generateWebhookSecret, webhookSignature, webhookSignatureHeader } from './webhook-signature';

// Vectors computed with `printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac '<secret>'`.
const BODY = '{"id":"x"}';
const T = 1_700_000_000;
const SIG_TEST = '80e8d098018f757aa814ab1abb924f35d304affa1d93d29611a54696207eb7c3';
const SIG_OTHER = '7ede93bb90bd501039d0ab1ede6b77e32b44cca191c14a793c2bd5dd5e4d4a9f';

describe('webhook secrets', () => {
  it('are whsec_ followed by 32 random bytes in base64url', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe('webhook signatures', () => {
  it('are the hex HMAC-SHA256 of "<t>.<body>" keyed by the whole secret string', () => {
    expect(webhookSignature('whsec_test', T, BODY)).toBe(SIG_TEST);
    expect(webhookSignature('whsec_other', T, BODY)).toBe(SIG_OTHER);
  });

  it('change with the timestamp and with any byte of the body', () => {
    expect(webhookSignature('whsec_test', T + 1, BODY)).not.toBe(SIG_TEST);
    expect(webhookSignature('whsec_test', T, '{"id":"y"}')).not.toBe(SIG_TEST);
  });

  it('header carries t and one v1 per secret, in the order given', () => {
    expect(webhookSignatureHeader(['whsec_test'], T, BODY)).toBe(`t=${T},v1=${SIG_TEST}`);
    expect(webhookSignatureHeader(['whsec_other', 'whsec_test'], T, BODY)).toBe(`t=${T},v1=${SIG_OTHER},v1=${SIG_TEST}`);
  });

  it('header refuses to sign with no secret or a bad timestamp', () => {
    expect(() => webhookSignatureHeader([], T, BODY)).toThrow(/at least one secret/);
    expect(() => webhookSignatureHeader(['whsec_test'], 1.5, BODY)).toThrow(RangeError);
  });
});
