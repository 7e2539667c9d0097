import { failureCountsAgainstHostname, http01StatusesInProblem } from './acme-validation-failure';

const TOKEN = 'LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0';
const url = (host: string) => `http://${host}/.well-known/acme-challenge/${TOKEN}`;

describe('http01StatusesInProblem', () => {
  test("reads the status from Pebble's and Boulder's wording", () => {
    expect(http01StatusesInProblem(`Non-200 status code from HTTP: http://shop.example.com:5002/.well-known/acme-challenge/${TOKEN} returned 503`, 'shop.example.com')).toEqual([503]);
    expect(http01StatusesInProblem(`Invalid response from ${url('shop.example.com')} [203.0.113.7]: 404`, 'shop.example.com')).toEqual([404]);
    expect(http01StatusesInProblem(`Invalid response from ${url('shop.example.com')} [2001:db8::7]: 503`, 'shop.example.com')).toEqual([503]);
    expect(http01StatusesInProblem(`Invalid response from ${url('shop.example.com')}: 503`, 'shop.example.com')).toEqual([503]);
  });

  test("names every perspective, in order, and only URLs of the hostname's challenge", () => {
    const detail = `Invalid response from ${url('shop.example.com')} [203.0.113.7]: 503; During secondary validation: Invalid response from ${url('shop.example.com')} [203.0.113.7]: 404`;
    expect(http01StatusesInProblem(detail, 'shop.example.com')).toEqual([503, 404]);
    // A redirect to another host, or a path that is not a challenge's.
    expect(http01StatusesInProblem(`Invalid response from ${url('elsewhere.example.net')}: 503`, 'shop.example.com')).toEqual([]);
    expect(http01StatusesInProblem('Invalid response from http://shop.example.com/index.html: 503', 'shop.example.com')).toEqual([]);
  });

  test('finds none in failures that are not an HTTP status', () => {
    expect(http01StatusesInProblem(`Get "${url('shop.example.com')}": dial tcp 127.0.0.1:5002: connect: connection refused`, 'shop.example.com')).toEqual([]);
    expect(http01StatusesInProblem(`The key authorization file from the server did not match this challenge "${TOKEN}.abc" != "x"`, 'shop.example.com')).toEqual([]);
    expect(http01StatusesInProblem('POST https://ca.example/order: timeout of 30000ms exceeded', 'shop.example.com')).toEqual([]);
  });
});

describe('failureCountsAgainstHostname', () => {
  test("a validation that got only our edge's 503 does not count", () => {
    expect(failureCountsAgainstHostname(`Non-200 status code from HTTP: http://Shop.Example.com:5002/.well-known/acme-challenge/${TOKEN} returned 503`, 'shop.example.com')).toBe(false);
    expect(failureCountsAgainstHostname(`During secondary validation: Invalid response from ${url('shop.example.com')} [203.0.113.7]: 503`, 'shop.example.com')).toBe(false);
  });

  test('any other failure counts: another status, a 503 beside another status, a 503 of another host, no status at all', () => {
    expect(failureCountsAgainstHostname(`Non-200 status code from HTTP: ${url('shop.example.com')} returned 404`, 'shop.example.com')).toBe(true);
    expect(failureCountsAgainstHostname(`Non-200 status code from HTTP: ${url('shop.example.com')} returned 500`, 'shop.example.com')).toBe(true);
    expect(failureCountsAgainstHostname(`Invalid response from ${url('shop.example.com')}: 503; During secondary validation: Invalid response from ${url('shop.example.com')}: 404`, 'shop.example.com')).toBe(true);
    expect(failureCountsAgainstHostname(`Invalid response from ${url('elsewhere.example.net')}: 503`, 'shop.example.com')).toBe(true);
    expect(failureCountsAgainstHostname('connection refused', 'shop.example.com')).toBe(true);
    expect(failureCountsAgainstHostname('', 'shop.example.com')).toBe(true);
  });
});
