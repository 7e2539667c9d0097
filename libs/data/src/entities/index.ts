import type { EntitySchema } from 'typeorm';
import type { DatabaseKind } from '../database-url';
import { applicationEntity } from './application.entity';
import { columnTypes } from './column-types';
import { credentialEntity } from './credential.entity';
import { domainCheckEntity } from './domain-check.entity';
import { domainEntity } from './domain.entity';
import { idempotencyKeyEntity } from './idempotency-key.entity';
import { outboxEntity } from './outbox.entity';
import { rateCounterEntity } from './rate-counter.entity';
import { settingEntity } from './setting.entity';
import { originEntity } from './origin.entity';
import { assertionKeyEntity } from './assertion-key.entity';
import { trafficDayEntity } from './traffic-day.entity';
import { webhookAttemptEntity } from './webhook-attempt.entity';
import { webhookDeliveryEntity } from './webhook-delivery.entity';
import { webhookSecretEntity } from './webhook-secret.entity';
import { webhookSubscriptionEntity } from './webhook-subscription.entity';
import { certificateEntity } from './certificate.entity';
import { acmeChallengeEntity } from './acme-challenge.entity';

export type { RateCounterRow } from './rate-counter.entity';
export type { SettingRow } from './setting.entity';

export { ENTITY } from './entity-names';

/** Every entity of the schema, built for one database (column types differ). */
export function entitySchemas(kind: DatabaseKind): EntitySchema[] {
  const t = columnTypes(kind);
  return [
    applicationEntity(t),
    credentialEntity(t),
    domainEntity(t),
    domainCheckEntity(t),
    idempotencyKeyEntity(t),
    outboxEntity(t),
    rateCounterEntity(t),
    settingEntity(t),
    originEntity(t),
    assertionKeyEntity(t),
    trafficDayEntity(t),
    webhookSubscriptionEntity(t),
    webhookSecretEntity(t),
    webhookDeliveryEntity(t),
    webhookAttemptEntity(t),
    certificateEntity(t),
    acmeChallengeEntity(t),
  ] as EntitySchema[];
}
