// The least environment a split-mode service starts with: its secrets and the
// addresses of PostgreSQL and RabbitMQ (config tests add what they test).
import { randomBytes } from 'node:crypto';

export const splitEnv = {
  OPERATOR_TOKEN: 'x'.repeat(32),
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  DATABASE_URL: 'postgres://postgres@127.0.0.1/test',
};
