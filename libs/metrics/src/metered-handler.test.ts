import { registry } from './registry';
import { meteredDeadLetters, meteredHandler } from './metered-handler';

async function sample(name: string, labels: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

interface Message {
  fail: boolean;
  createdAt: string | null;
}

describe('meteredHandler', () => {
  const now = new Date('2026-05-01T12:00:10Z');
  const handler = meteredHandler<Message>(
    'unit-consumer',
    (message) => (message.fail ? Promise.reject(new Error('handler failed')) : Promise.resolve()),
    { writtenAt: (message) => (message.createdAt ? new Date(message.createdAt) : null), now: () => now },
  );

  it('shows both outcomes and an empty lag histogram before the first message', async () => {
    expect(await sample('cds_messages_consumed_total', 'consumer="unit-consumer",outcome="ack"')).toBe(0);
    expect(await sample('cds_messages_consumed_total', 'consumer="unit-consumer",outcome="retry"')).toBe(0);
    expect(await sample('cds_consumer_lag_seconds_count', 'consumer="unit-consumer"')).toBe(0);
  });

  it('counts a handled message as ack and a failed one as retry, passing the failure on to the bus', async () => {
    await handler({ fail: false, createdAt: null });
    await expect(handler({ fail: true, createdAt: null })).rejects.toThrow('handler failed');
    expect(await sample('cds_messages_consumed_total', 'consumer="unit-consumer",outcome="ack"')).toBe(1);
    expect(await sample('cds_messages_consumed_total', 'consumer="unit-consumer",outcome="retry"')).toBe(1);
  });

  it('observes the lag of messages that carry their creation time, and only of those', async () => {
    await handler({ fail: false, createdAt: '2026-05-01T12:00:07.500Z' });
    await handler({ fail: false, createdAt: 'not a date' });
    expect(await sample('cds_consumer_lag_seconds_count', 'consumer="unit-consumer"')).toBe(1);
    expect(await sample('cds_consumer_lag_seconds_sum', 'consumer="unit-consumer"')).toBe(2.5);
    expect(await sample('cds_consumer_lag_seconds_bucket', 'le="1",consumer="unit-consumer"')).toBe(0);
    expect(await sample('cds_consumer_lag_seconds_bucket', 'le="5",consumer="unit-consumer"')).toBe(1);
  });
});

describe('meteredDeadLetters', () => {
  it('shows dead_letter at zero, then counts each dead letter the bus reports', async () => {
    const onDeadLetter = meteredDeadLetters('unit-dead');
    expect(await sample('cds_messages_consumed_total', 'consumer="unit-dead",outcome="dead_letter"')).toBe(0);
    onDeadLetter();
    onDeadLetter();
    expect(await sample('cds_messages_consumed_total', 'consumer="unit-dead",outcome="dead_letter"')).toBe(2);
  });
});
