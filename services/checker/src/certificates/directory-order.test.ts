import { directoryOrder } from './directory-order';
import { DIRECTORY_SET_ASIDE_MS, DirectorySetAside } from './directory-set-aside';

const [A, B, C] = ['https://a.example/dir', 'https://b.example/dir', 'https://c.example/dir'];
const none = () => false;

describe('directoryOrder', () => {
  it('follows the order of preference', () => {
    expect(directoryOrder([A, B, C], [], none)).toEqual([A, B, C]);
    expect(directoryOrder([A], [null, null], none)).toEqual([A]);
  });

  it('puts a saved order\'s directory, then the issuing directory, first', () => {
    expect(directoryOrder([A, B, C], [null, C], none)).toEqual([C, A, B]);
    expect(directoryOrder([A, B, C], [B, C], none)).toEqual([B, C, A]);
    expect(directoryOrder([A, B, C], [B, B], none)).toEqual([B, A, C]);
  });

  it('skips a preferred directory that is no longer configured', () => {
    expect(directoryOrder([A, B], ['https://gone.example/dir', B], none)).toEqual([B, A]);
  });

  it('moves directories set aside to the end, keeping their order', () => {
    expect(directoryOrder([A, B, C], [], (url) => url === A)).toEqual([B, C, A]);
    expect(directoryOrder([A, B, C], [C], (url) => url !== B)).toEqual([B, C, A]);
    // Every directory set aside: all are still tried, in order.
    expect(directoryOrder([A, B], [], () => true)).toEqual([A, B]);
  });
});

describe('DirectorySetAside', () => {
  const t0 = new Date('2026-03-01T12:00:00.000Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);

  it('sets a directory aside for ten minutes', () => {
    const aside = new DirectorySetAside();
    expect(aside.isSetAside(A, t0)).toBe(false);
    expect(aside.setAside(A, t0)).toEqual(at(DIRECTORY_SET_ASIDE_MS));
    expect(DIRECTORY_SET_ASIDE_MS).toBe(600_000);
    expect(aside.isSetAside(A, at(DIRECTORY_SET_ASIDE_MS - 1))).toBe(true);
    expect(aside.setAsideUntil(A, at(1000))).toEqual(at(DIRECTORY_SET_ASIDE_MS));
    expect(aside.isSetAside(B, at(1000))).toBe(false);
    expect(aside.isSetAside(A, at(DIRECTORY_SET_ASIDE_MS))).toBe(false);
  });

  it('starts the pause again at each failure', () => {
    const aside = new DirectorySetAside(1000);
    aside.setAside(A, t0);
    aside.setAside(A, at(800));
    expect(aside.isSetAside(A, at(1500))).toBe(true);
    expect(aside.isSetAside(A, at(1800))).toBe(false);
  });
});
