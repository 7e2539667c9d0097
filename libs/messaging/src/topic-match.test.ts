import { topicMatches } from './topic-match';

describe('topicMatches', () => {
  it.each([
    ['domain.check.requested', 'domain.check.requested', true],
    ['domain.check.requested', 'domain.check', false],
    ['domain.check', 'domain.check.requested', false],
    ['domain.*', 'domain.changed', true],
    ['domain.*', 'domain.check.requested', false],
    ['*.changed', 'domain.changed', true],
    ['*.*.*', 'domain.check.requested', true],
    ['*', 'event', true],
    ['*', 'event.emitted', false],
    ['domain.#', 'domain', true],
    ['domain.#', 'domain.changed', true],
    ['domain.#', 'domain.check.requested', true],
    ['domain.#', 'event.emitted', false],
    ['#', 'domain.check.requested', true],
    ['#.requested', 'domain.check.requested', true],
    ['#.requested', 'requested', true],
    ['#.check.#', 'domain.check.requested', true],
    ['#.check.#', 'domain.changed', false],
    ['domain.#.requested', 'domain.requested', true],
    ['domain.#.requested', 'domain.a.b.requested', true],
    ['domain.*.requested', 'domain.requested', false],
    ['event.emitted', 'event.emitted.extra', false],
  ])('%s ~ %s -> %s', (pattern, key, expected) => {
    expect(topicMatches(pattern, key)).toBe(expected);
  });
});
