/** Entity names, for `manager.getRepository<Row>(ENTITY.x)`. */
export const ENTITY = {
  application: 'Application',
  credential: 'Credential',
  domain: 'Domain',
  domainCheck: 'DomainCheck',
  idempotencyKey: 'IdempotencyKey',
  outbox: 'Outbox',
  rateCounter: 'RateCounter',
  setting: 'Setting',
} as const;
