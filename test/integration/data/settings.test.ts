import { openMigratedStore, type MigratedStore } from './data-fixtures';

describe('settings repository', () => {
  let ctx: MigratedStore;

  beforeAll(async () => {
    ctx = await openMigratedStore();
  });
  afterAll(() => ctx.close());

  it('reads null for a missing key, then the last value set', async () => {
    expect(await ctx.store.run((r) => r.settings.get('operator_token_sha256'))).toBeNull();
    await ctx.store.run((r) => r.settings.set('operator_token_sha256', 'a'.repeat(64)));
    expect(await ctx.store.run((r) => r.settings.get('operator_token_sha256'))).toBe('a'.repeat(64));
    await ctx.store.transaction((r) => r.settings.set('operator_token_sha256', 'b'));
    expect(await ctx.store.run((r) => r.settings.get('operator_token_sha256'))).toBe('b');
    expect(await ctx.store.run((r) => r.settings.get('other'))).toBeNull();
  });
});
