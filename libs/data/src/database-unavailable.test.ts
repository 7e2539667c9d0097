import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET')],
    ['the server shutting down', withCode('57P01', 'terminating connection due to administrator command')],
    ['the server starting up', withCode('57P03', 'the database system is starting up')],
    ['a connection exception', withCode('08006')],
    ['the connection ending under a query', new Error('Connection terminated unexpectedly')],
    ['no connection in time', new Error('timeout exceeded when trying to connect')],
    ['a client that lost its connection', new Error('Client has encountered a connection error and is not queryable')],
  ])('is true for %s', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it('looks into wrapped driver errors and causes', () => {
    expect(isDatabaseUnavailable({ message: 'Query failed', driverError: withCode('57P01') })).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: new Error('Connection terminated') }))).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', withCode('42601')],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', null],
  ])('is false for %s', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('stops on a cycle of causes', () => {
    const a: { cause?: unknown; message: string } = { message: 'a' };
    a.cause = a;
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
