// How the services reach PostgreSQL and RabbitMQ: the URL and, when a CA
// bundle is set, its certificates, in the shape the data store and the bus take.
import { readCaBundle } from './ca-bundle';
import type { Config } from './config.types';

export interface Connection {
  readonly url: string;
  /** PEM certificates trusted for the server instead of node's CAs. */
  readonly ca?: string;
}

function withCa(url: string, bundle: string | null): Connection {
  return bundle ? { url, ca: readCaBundle(bundle) } : { url };
}

/** DATABASE_URL with DATABASE_CA_BUNDLE's certificates. */
export function databaseConnection(config: Pick<Config, 'databaseUrl' | 'databaseCaBundle'>): Connection {
  return withCa(config.databaseUrl, config.databaseCaBundle);
}

/** AMQP_URL with AMQP_CA_BUNDLE's certificates; null without AMQP_URL (the in-process bus). */
export function brokerConnection(config: Pick<Config, 'amqpUrl' | 'amqpCaBundle'>): Connection | null {
  return config.amqpUrl === null ? null : withCa(config.amqpUrl, config.amqpCaBundle);
}
