// AMQP topic matching for the in-process bus: words are separated by `.`,
// `*` matches exactly one word, `#` matches zero or more words.

export function topicMatches(pattern: string, routingKey: string): boolean {
  return matchWords(pattern.split('.'), 0, routingKey.split('.'), 0);
}

function matchWords(pattern: string[], p: number, key: string[], k: number): boolean {
  if (p === pattern.length) return k === key.length;
  const word = pattern[p];
  if (word === '#') {
    // Try every split: `#` swallows key[k..i).
    for (let i = k; i <= key.length; i += 1) {
      if (matchWords(pattern, p + 1, key, i)) return true;
    }
    return false;
  }
  if (k === key.length) return false;
  return (word === '*' || word === key[k]) && matchWords(pattern, p + 1, key, k + 1);
}
