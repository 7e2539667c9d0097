// Generic words, not the catalog's keys: the matcher knows nothing of our messages.
import { topicMatches } from './topic-match';

describe('topicMatches', () => {
  it.each([
    ['order.line.added', 'order.line.added', true],
    ['order.line.added', 'order.line', false],
    ['order.line', 'order.line.added', false],
    ['order.*', 'order.shipped', true],
    ['order.*', 'order.line.added', false],
    ['*.shipped', 'order.shipped', true],
    ['*.*.*', 'order.line.added', true],
    ['*', 'invoice', true],
    ['*', 'invoice.sent', false],
    ['order.#', 'order', true],
    ['order.#', 'order.shipped', true],
    ['order.#', 'order.line.added', true],
    ['order.#', 'invoice.sent', false],
    ['#', 'order.line.added', true],
    ['#.added', 'order.line.added', true],
    ['#.added', 'added', true],
    ['#.line.#', 'order.line.added', true],
    ['#.line.#', 'order.shipped', false],
    ['order.#.added', 'order.added', true],
    ['order.#.added', 'order.a.b.added', true],
    ['order.*.added', 'order.added', false],
    ['invoice.sent', 'invoice.sent.extra', false],
  ])('%s ~ %s -> %s', (pattern, key, expected) => {
    expect(topicMatches(pattern, key)).toBe(expected);
  });
});
