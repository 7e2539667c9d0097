import { TurnQueue } from './turn-queue';

/** Items named `<kind>:<group><n>`: kind r (priority 0) or f (priority 1), group a letter. */
const queueOf = () => new TurnQueue<string>((item) => ({ priority: item.startsWith('r:') ? 0 : 1, group: item.slice(2, 3) }));

function fill(queue: TurnQueue<string>, items: string[]): TurnQueue<string> {
  for (const item of items) queue.push(item);
  return queue;
}

describe('TurnQueue', () => {
  test('is first in, first out within one group', () => {
    const queue = fill(queueOf(), ['f:a1', 'f:a2', 'f:a3']);
    expect(queue.length).toBe(3);
    expect(queue.drain()).toEqual(['f:a1', 'f:a2', 'f:a3']);
    expect(queue.length).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });

  test("groups take turns: one group's flood waits behind one item of each other group", () => {
    const queue = fill(queueOf(), ['f:a1', 'f:a2', 'f:a3', 'f:a4', 'f:b1', 'f:a5', 'f:c1', 'f:b2']);
    expect(queue.drain()).toEqual(['f:a1', 'f:b1', 'f:c1', 'f:a2', 'f:b2', 'f:a3', 'f:a4', 'f:a5']);
  });

  test('a lower priority goes first, whenever it came', () => {
    const queue = fill(queueOf(), ['f:a1', 'f:a2', 'f:b1', 'r:c1']);
    expect(queue.shift()).toBe('r:c1');
    queue.push('r:a1');
    expect(queue.drain()).toEqual(['r:a1', 'f:a1', 'f:b1', 'f:a2']);
  });

  test('a group that ran out and comes back takes the last turn', () => {
    const queue = fill(queueOf(), ['f:a1', 'f:b1', 'f:b2']);
    expect(queue.shift()).toBe('f:a1');
    queue.push('f:a2');
    expect(queue.drain()).toEqual(['f:b1', 'f:a2', 'f:b2']);
  });
});
