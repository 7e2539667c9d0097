// What the tests of real edge processes share: a PostgreSQL database of their
// own, the internal CA, a recording origin, a RabbitMQ vhost of their own (the
// domain.changed messages a test publishes reach its edges only), and the
// environment an edge process starts with.
import { randomBytes } from 'node:crypto';
import { InternalCa } from '@cds/checker';
import { createDataStore, type DataStore } from '@cds/data';
import { connectAmqpBus, type AmqpBus } from '@cds/messaging';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';
import { DATA_KEY, DEPLOYMENT_KEY, startRecordingOrigin, type RecordingOrigin } from './edge-fixture';
import { waitForEdgeBuild } from './edge-process';

export interface EdgeProcessWorld {
  db: TestDatabase;
  store: DataStore;
  ca: InternalCa;
  caPem: string;
  origin: RecordingOrigin;
  vhost: TestVhost;
  bus: AmqpBus;
  /** An edge process's variables: this world's database, vhost and keys, and `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function startEdgeProcessWorld(name: string): Promise<EdgeProcessWorld> {
  await waitForEdgeBuild();
  const db = await createTestDatabase('postgres');
  const store = await createDataStore({ url: db.url });
  await store.migrate();
  const ca = new InternalCa(store, DATA_KEY);
  const caPem = await ca.certificatePem();
  const origin = await startRecordingOrigin();
  const vhost = await createVhost();
  const bus = await connectAmqpBus({ url: vhost.url, connectionName: name });
  const operatorToken = randomBytes(24).toString('base64url');
  return {
    db, store, ca, caPem, origin, vhost, bus,
    env: (extra = {}) => ({
      DATABASE_URL: db.url,
      AMQP_URL: vhost.url,
      OPERATOR_TOKEN: operatorToken,
      DATA_ENCRYPTION_KEY: DATA_KEY.toString('base64'),
      ASSERTION_DEPLOYMENT_KEY: DEPLOYMENT_KEY.secret,
      ORIGIN_TIMEOUT: '5s',
      LOG_LEVEL: 'warn',
      ...extra,
    }),
    async close() {
      await bus.close();
      await origin.close();
      await store.close();
      await db.drop();
      await deleteVhost(vhost);
    },
  };
}
