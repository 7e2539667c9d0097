import { errorMessage } from './error-message';

describe('errorMessage', () => {
  it('gives an error\'s message, or its name when the message is empty', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage(new TypeError(''))).toBe('TypeError');
  });

  it('gives the messages of an AggregateError\'s errors, which has none of its own', () => {
    const refused = new AggregateError([new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')]);
    expect(refused.message).toBe('');
    expect(errorMessage(refused)).toBe('connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('turns anything else thrown into text', () => {
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
