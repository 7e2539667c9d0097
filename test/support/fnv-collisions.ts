// Hostnames that collide with a given one under the unkeyed 30-bit FNV-1a the
// edge's set of live names used before it was keyed: anyone can make them,
// since live hostnames are public. Meet in the middle: a table of the states
// from which four letters and a fixed tail lead to the target hash, then
// prefixes until one lands on a state of the table (one in about 640): six
// random letters, then every pair of letters after them. 5,000 names take a
// few seconds, most of it building the table.

const PRIME = 0x01000193;
const OFFSET_BASIS = 0x811c9dc5;
const MASK = 0x3fffffff;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MIDDLE = 4;
const MIDDLES = LETTERS.length ** MIDDLE;

/** FNV-1a over UTF-16 code units cut to 30 bits: the edge's former name hash. */
export function fnv1a30(name: string): number {
  let h = OFFSET_BASIS;
  for (let i = 0; i < name.length; i += 1) h = Math.imul(h ^ name.charCodeAt(i), PRIME);
  return h & MASK;
}

/** The prime's inverse modulo 2^32 (Newton's iteration): one FNV step undone. */
const INVERSE = (() => {
  let inverse = PRIME;
  for (let i = 0; i < 5; i += 1) inverse = Math.imul(inverse, 2 - Math.imul(PRIME, inverse));
  return inverse;
})();

const back = (state: number, text: string): number => {
  let h = state;
  for (let i = text.length - 1; i >= 0; i -= 1) h = (Math.imul(h, INVERSE) ^ text.charCodeAt(i)) & MASK;
  return h;
};

/** A table slot: the top bits of a multiplicative hash (the states' low bits cluster). */
const slotOf = (state: number, size: number): number => Math.imul(state, 0x9e3779b1) >>> (32 - Math.log2(size));

const middle = (index: number): string => {
  let text = '';
  for (let i = 0, n = index; i < MIDDLE; i += 1, n = Math.floor(n / LETTERS.length)) text += LETTERS[n % LETTERS.length];
  return text;
};

/** `count` distinct names `<8 letters><4 chosen><tail>` whose FNV-1a 30-bit hash is the hash of `hostname`. */
export function fnvCollisions(hostname: string, count: number, tail = '.collide.example'): string[] {
  const beforeTail = back(fnv1a30(hostname), tail);
  // Open addressing: state + 1 (0 marks an empty slot) → the middle that leads from it to the tail's state.
  const size = 1 << 22;
  const states = new Int32Array(size);
  const middles = new Int32Array(size);
  for (let index = 0; index < MIDDLES; index += 1) {
    const state = back(beforeTail, middle(index));
    let slot = slotOf(state, size);
    while (states[slot] !== 0) slot = (slot + 1) & (size - 1);
    states[slot] = state + 1;
    middles[slot] = index;
  }
  const names = new Set<string>();
  while (names.size < count) {
    let head = '';
    let h6 = OFFSET_BASIS;
    for (let i = 0; i < 6; i += 1) {
      const letter = LETTERS[Math.floor(Math.random() * (i === 0 ? 26 : LETTERS.length))]!;
      head += letter;
      h6 = Math.imul(h6 ^ letter.charCodeAt(0), PRIME);
    }
    for (let a = 0; a < LETTERS.length; a += 1) {
      const h7 = Math.imul(h6 ^ LETTERS.charCodeAt(a), PRIME);
      for (let b = 0; b < LETTERS.length; b += 1) {
        const h = Math.imul(h7 ^ LETTERS.charCodeAt(b), PRIME) & MASK;
        for (let slot = slotOf(h, size); states[slot] !== 0; slot = (slot + 1) & (size - 1)) {
          if (states[slot] === h + 1) names.add(`${head}${LETTERS[a]}${LETTERS[b]}${middle(middles[slot]!)}${tail}`);
        }
      }
    }
  }
  return [...names].slice(0, count);
}
