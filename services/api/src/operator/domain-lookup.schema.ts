import Joi from 'joi';
import { CERT_ISSUERS, CHECK_STATUSES, CHECK_TYPES, DOMAIN_STATUSES, domainResourceSchema, RUN_TRIGGERS, timestampSchema } from '@cds/core';
import { RECENT_RUNS_KEPT } from '@cds/data';
import { queryBoolean } from '../shared/common.schema';
import type { DomainLookupResource } from './domain-lookup.mapper';

export const domainLookupQuery = Joi.object<{ include_deleted: boolean }, true>({
  include_deleted: queryBoolean.default(false).description('`true`: the domain of the hostname deleted last when none is live'),
});

const domainCertificate = Joi.object({
  issuer: Joi.string().valid(...CERT_ISSUERS).required(),
  directory_url: Joi.string().allow(null).required().description('The ACME directory that issued an `acme` certificate (one of ACME_DIRECTORY_URL); null for `internal`'),
  serial: Joi.string().pattern(/^[0-9a-f]+$/).allow(null).required().description("The leaf's serial number, lowercase hex; null when the stored chain cannot be read"),
  not_before: timestampSchema.required(),
  not_after: timestampSchema.required(),
  renewal_after: timestampSchema.required().description('When it becomes due for renewal: once two thirds of its lifetime (not_before to not_after) have passed'),
  fingerprint_sha256: Joi.string().pattern(/^[0-9a-f]{64}$/).allow(null).required().description("SHA-256 of the leaf's DER, lowercase hex; null when the stored chain cannot be read"),
}).label('DomainCertificate');

const runCheck = Joi.object({
  type: Joi.string().valid(...CHECK_TYPES).required(),
  status: Joi.string().valid(...CHECK_STATUSES).required(),
  error_code: Joi.string().allow(null).required(),
  message: Joi.string().allow(null).required(),
}).label('RunCheck');

const checkRun = Joi.object({
  started_at: timestampSchema.required(),
  duration_ms: Joi.number().integer().min(0).required(),
  trigger: Joi.string().valid(...RUN_TRIGGERS).required(),
  checks: Joi.array().items(runCheck).length(CHECK_TYPES.length).required().description('What the run saw, ownership, routing, certificate, origin'),
  status_before: Joi.string().valid(...DOMAIN_STATUSES).required(),
  status_after: Joi.string().valid(...DOMAIN_STATUSES).required(),
}).label('CheckRun');

/** The Domain resource of the application API with what an operator needs to support its tenant (DECISIONS §15). */
export const domainLookup = domainResourceSchema.append<DomainLookupResource>({
  application: Joi.string().required().description("The application's slug"),
  certificate: domainCertificate.allow(null).required().description("The hostname's certificate, as the edge presents it; null when it has none"),
  recent_runs: Joi.array().items(checkRun).max(RECENT_RUNS_KEPT).required().description('The last check runs kept, newest first'),
}).label('DomainLookup');
