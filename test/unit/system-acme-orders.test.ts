import { classifyOrders, type RecordedExchange } from '../system/acme-orders';

const base = 'https://127.0.0.1:14000';
const newOrder = (host: string, id: string): RecordedExchange => ({
  method: 'POST', path: '/order-plz', payload: { identifiers: [{ type: 'dns', value: host }] },
  answer: { status: 201, body: JSON.stringify({ status: 'pending', identifiers: [{ type: 'dns', value: host }], finalize: `${base}/finalize-order/${id}`, authorizations: [`${base}/authZ/${id}`] }) },
});
const orderState = (id: string, status: string, path = `/my-order/${id}`): RecordedExchange => ({
  method: 'POST', path, payload: null, answer: { status: 200, body: JSON.stringify({ status, finalize: `${base}/finalize-order/${id}` }) },
});
const authzState = (id: string, status: string): RecordedExchange => ({
  method: 'POST', path: `/authZ/${id}`, payload: null, answer: { status: 200, body: JSON.stringify({ status, identifier: { type: 'dns', value: 'x' } }) },
});

describe('ACME orders from the recording proxy', () => {
  it('tells valid, invalid and unfinished orders apart', () => {
    const orders = classifyOrders([
      newOrder('a.example.com', '1'), authzState('1', 'valid'), orderState('1', 'processing', '/finalize-order/1'), orderState('1', 'valid'),
      newOrder('b.example.com', '2'), authzState('2', 'invalid'),
      newOrder('b.example.com', '3'), orderState('3', 'invalid'),
      newOrder('c.example.com', '4'), authzState('4', 'pending'),
      { method: 'GET', path: '/certZ/1', payload: null, answer: { status: 200, body: '-----BEGIN CERTIFICATE-----' } },
    ]);
    expect(orders.map(({ hostname, outcome }) => ({ hostname, outcome }))).toEqual([
      { hostname: 'a.example.com', outcome: 'valid' },
      { hostname: 'b.example.com', outcome: 'invalid' },
      { hostname: 'b.example.com', outcome: 'invalid' },
      { hostname: 'c.example.com', outcome: 'unfinished' },
    ]);
  });

  it('counts only the newOrder requests Pebble accepted', () => {
    const refused: RecordedExchange = { ...newOrder('d.example.com', '5'), answer: { status: 400, body: '{"type":"urn:ietf:params:acme:error:malformed"}' } };
    const unanswered: RecordedExchange = { ...newOrder('e.example.com', '6') };
    delete unanswered.answer;
    expect(classifyOrders([refused, unanswered])).toEqual([]);
  });
});

describe('ACME order spans', () => {
  it('runs from the newOrder to the last exchange about the order or its authorizations', () => {
    const orders = classifyOrders([
      newOrder('a.example.com', '1'), newOrder('b.example.com', '2'), authzState('1', 'valid'), orderState('2', 'valid'), orderState('1', 'valid'),
    ]);
    expect(orders.map((o) => o.span)).toEqual([{ first: 0, last: 4 }, { first: 1, last: 3 }]);
  });
});

describe('ACME order spans with a reused authorization', () => {
  it('leaves out an authorization the CA gave to two orders', () => {
    const second: RecordedExchange = { ...newOrder('a.example.com', '2') };
    second.answer = { status: 201, body: JSON.stringify({ status: 'pending', finalize: `${base}/finalize-order/2`, authorizations: [`${base}/authZ/1`] }) };
    const orders = classifyOrders([newOrder('a.example.com', '1'), orderState('1', 'pending'), second, authzState('1', 'valid'), orderState('2', 'valid')]);
    expect(orders.map((o) => o.span)).toEqual([{ first: 0, last: 1 }, { first: 2, last: 4 }]);
  });
});

describe('ACME orders failed at their challenge', () => {
  it('counts an order whose challenge turned invalid as invalid', () => {
    const authz: RecordedExchange = {
      method: 'POST', path: '/authZ/7', payload: null,
      answer: { status: 200, body: JSON.stringify({ status: 'pending', challenges: [{ type: 'http-01', url: `${base}/chalZ/7`, status: 'pending' }] }) },
    };
    const challenge: RecordedExchange = { method: 'POST', path: '/chalZ/7', payload: null, answer: { status: 200, body: JSON.stringify({ type: 'http-01', status: 'invalid' }) } };
    const orders = classifyOrders([newOrder('x.example.com', '7'), authz, challenge]);
    expect(orders).toEqual([{ hostname: 'x.example.com', outcome: 'invalid', span: { first: 0, last: 2 } }]);
  });

  it('counts an order whose authorization was deactivated as failed', () => {
    expect(classifyOrders([newOrder('y.example.com', '8'), authzState('8', 'deactivated')])[0]?.outcome).toBe('invalid');
  });
});
