// Who goes next among the certificates waiting in one checker: the lowest
// priority first (renewals before first certificates), and within a priority
// the groups (applications) take turns, each in the order its items came. A
// flood of one application's new domains therefore waits behind one item of
// each other application, never in front of all of them. No I/O.
// Not the dispatcher's FairQueue, though both let groups take turns: this one
// only orders items (every item is taken when asked, a group that ran out
// leaves and comes back last), while FairQueue hands out slots (a lane waits
// while its own or its application's attempts fill them, keeps its place while
// attempts run, and a lane that joins goes before those already served).

/** Where an item waits: `priority` 0 goes first; items of one `group` take one turn per round. */
export interface Turn {
  priority: number;
  group: string;
}

interface Round<T> {
  /** Each group's items, oldest first; a Map keeps the groups in the order of their turns. */
  groups: Map<string, T[]>;
}

export class TurnQueue<T> {
  private readonly rounds = new Map<number, Round<T>>();
  private size = 0;

  constructor(private readonly turnOf: (item: T) => Turn) {}

  get length(): number {
    return this.size;
  }

  /** Queues an item behind the ones of its group; a group new to its priority takes the last turn. */
  push(item: T): void {
    const { priority, group } = this.turnOf(item);
    let round = this.rounds.get(priority);
    if (!round) {
      round = { groups: new Map() };
      this.rounds.set(priority, round);
    }
    const waiting = round.groups.get(group);
    if (waiting) waiting.push(item);
    else round.groups.set(group, [item]);
    this.size += 1;
  }

  /** The next item: the oldest of the group whose turn it is, in the lowest priority that has one. */
  shift(): T | undefined {
    const priority = Math.min(...this.rounds.keys());
    const round = this.rounds.get(priority);
    if (!round) return undefined;
    const [group, waiting] = round.groups.entries().next().value as [string, T[]];
    const item = waiting.shift() as T;
    // The group's turn is over: it goes to the back, or leaves when it has nothing left.
    round.groups.delete(group);
    if (waiting.length > 0) round.groups.set(group, waiting);
    if (round.groups.size === 0) this.rounds.delete(priority);
    this.size -= 1;
    return item;
  }

  /** Empties the queue; its items in the order they would have been taken. */
  drain(): T[] {
    const items: T[] = [];
    while (this.size > 0) items.push(this.shift() as T);
    return items;
  }
}
