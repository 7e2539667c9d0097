import { logColourAllowed } from './log-colour';

describe('logColourAllowed', () => {
  it('allows colour unless NO_COLOR has a value, whatever it is', () => {
    expect(logColourAllowed({})).toBe(true);
    expect(logColourAllowed({ NO_COLOR: '' })).toBe(true);
    expect(logColourAllowed({ NO_COLOR: '1' })).toBe(false);
    expect(logColourAllowed({ NO_COLOR: 'false' })).toBe(false);
  });
});
