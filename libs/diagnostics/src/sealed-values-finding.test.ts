import { sealedValuesFinding } from './sealed-values-finding';

describe('sealedValuesFinding', () => {
  it('fails naming each kind a configured key does not open', () => {
    const finding = sealedValuesFinding([
      { kind: 'certificates', opened: 3, unopened: 2, stale: 0 },
      { kind: 'webhook_secrets', opened: 4, unopened: 0, stale: 0 },
      { kind: 'settings', opened: 0, unopened: 1, stale: 0 },
    ]);
    expect(finding).toEqual({
      status: 'fail',
      message: 'no configured data encryption key opens certificates (2 of 5 sampled), settings (1 of 1 sampled): restore the key that sealed them (DATA_ENCRYPTION_KEYS)',
    });
  });

  it('is ok when every sampled value opens, noting those an older key sealed', () => {
    expect(sealedValuesFinding([{ kind: 'certificates', opened: 3, unopened: 0, stale: 0 }])).toEqual({ status: 'ok', message: 'the configured keys open all 3 sampled values' });
    expect(sealedValuesFinding([{ kind: 'certificates', opened: 3, unopened: 0, stale: 2 }]).message).toBe(
      'the configured keys open all 3 sampled values; 2 sealed with an older key or format (`cdctl rekey` reseals them)',
    );
    expect(sealedValuesFinding([{ kind: 'certificates', opened: 0, unopened: 0, stale: 0 }])).toEqual({ status: 'ok', message: 'no sealed values stored yet' });
  });

  it('warns when the keys are not at hand', () => {
    expect(sealedValuesFinding(null).status).toBe('warn');
  });
});
