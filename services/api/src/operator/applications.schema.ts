import Joi from 'joi';
import { APPLICATION_STATUSES, LIMIT_KEYS, PLAN_NAMES, timestampSchema, type ApplicationStatus, type Limits, type PlanName } from '@cds/core';
import { queryBoolean } from '../shared/common.schema';

const count = Joi.number().integer().min(0).max(Number.MAX_SAFE_INTEGER);
const limitsShape = Object.fromEntries(LIMIT_KEYS.map((key) => [key, count]));
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
const plan = Joi.string().valid(...PLAN_NAMES);
/** A display label; U+0000 is refused because PostgreSQL text cannot hold it. */
export const labelText = Joi.string().trim().min(1).max(200)
  .custom((value: string, helpers) => (value.includes('\u0000') ? helpers.error('string.nul') : value))
  .messages({ 'string.nul': '{{#label}} must not contain the NUL character' });
const contactEmail = Joi.string().email({ tlds: false }).max(254).allow(null);

export interface CreateApplicationBody {
  slug: string;
  name: string;
  contact_email?: string | null;
  plan: PlanName;
  limits?: Partial<Limits>;
}

export const createApplicationBody = Joi.object<CreateApplicationBody, true>({
  slug: Joi.string().pattern(SLUG_PATTERN).required().description('2-63 characters: a-z, 0-9, hyphen; not starting with a hyphen'),
  name: labelText.required(),
  contact_email: contactEmail,
  plan: plan.default('free'),
  limits: Joi.object(limitsShape).description('Overrides of the plan limits'),
}).label('ApplicationCreate');

export type UpdateApplicationBody = Partial<Omit<CreateApplicationBody, 'slug'>> & { status?: ApplicationStatus };

export const updateApplicationBody = Joi.object<UpdateApplicationBody, true>({
  name: labelText,
  contact_email: contactEmail,
  status: Joi.string().valid(...APPLICATION_STATUSES),
  plan,
  limits: Joi.object(limitsShape).description('Merged key by key into the current limits'),
}).label('ApplicationUpdate');

export const deleteApplicationQuery = Joi.object<{ confirm: string; delete_domains: boolean }, true>({
  confirm: Joi.string().allow('').default('').description('Repeat the slug to confirm'),
  delete_domains: queryBoolean.default(false).description('Also delete live domains'),
});

export const applicationResource = Joi.object({
  slug: Joi.string().required(),
  name: Joi.string().required(),
  status: Joi.string().valid(...APPLICATION_STATUSES).required(),
  plan: Joi.string().required(),
  contact_email: Joi.string().allow(null).required(),
  limits: Joi.object(limitsShape).required(),
  live_domains: Joi.number().integer().required(),
  created_at: timestampSchema.required(),
  updated_at: timestampSchema.required(),
}).label('Application');

export const applicationDeletion = Joi.object({
  slug: Joi.string().required(),
  deleted_at: timestampSchema.required(),
  domains_deleted: Joi.number().integer().required(),
}).label('ApplicationDeletion');
