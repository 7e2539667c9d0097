import { parseDuration, parseDurationList } from './duration';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['250', 250],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    [' 10s ', 10_000],
    ['0s', 0],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '10 s', '10sec', '-5s', '1w', '1e3', '.5s', '5m30s'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow('must be a duration');
  });
});

describe('parseDurationList', () => {
  it('parses a comma list in order', () => {
    expect(parseDurationList('1m, 500ms ,2h')).toEqual([60_000, 500, 7_200_000]);
  });

  it.each(['', ',', '1m,', '1m,0s', '1m,later'])('refuses %j', (text) => {
    expect(() => parseDurationList(text)).toThrow('must be a comma list of durations');
  });
});
