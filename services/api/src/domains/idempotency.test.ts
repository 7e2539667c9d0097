import { claimedResourceId } from './idempotency';
import { UUID_PATTERN } from '../shared/common.schema';

describe('claimedResourceId', () => {
  const at = new Date('2026-11-26T08:00:00.123Z');

  it('is a version-5 UUID the id validation accepts, the same for the same claim', () => {
    const id = claimedResourceId('app-1', 'key-1', at);
    expect(id).toMatch(UUID_PATTERN);
    expect(id[14]).toBe('5');
    expect(claimedResourceId('app-1', 'key-1', new Date(at.getTime()))).toBe(id);
  });

  it('differs when the application, the key or the claim time differs', () => {
    const id = claimedResourceId('app-1', 'key-1', at);
    expect(claimedResourceId('app-2', 'key-1', at)).not.toBe(id);
    expect(claimedResourceId('app-1', 'key-2', at)).not.toBe(id);
    expect(claimedResourceId('app-1', 'key-1', new Date(at.getTime() + 1))).not.toBe(id);
  });
});
