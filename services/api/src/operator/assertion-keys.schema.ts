import Joi from 'joi';
import { nullableTimestampSchema, timestampSchema } from '@cds/core';

/** Issuing takes no options yet: an empty object or no body. */
export const issueAssertionKeyBody = Joi.object<Record<string, never>, true>({}).label('AssertionKeyIssue');

const kid = Joi.string().description('Key id: `ak_` + 16 hex');
const status = Joi.string().valid('active', 'revoked');

export const assertionKeyResource = Joi.object({
  kid: kid.required(),
  status: status.required(),
  created_at: timestampSchema.required(),
  revoked_at: nullableTimestampSchema.required(),
}).label('AssertionKey');

export const assertionKeyList = Joi.object({
  signing_kid: Joi.string().required().description('The key that signs now: the newest active key, or the deployment key'),
  keys: Joi.array().items(assertionKeyResource).required(),
}).label('AssertionKeyList');

export const issuedAssertionKey = Joi.object({
  kid: kid.required(),
  secret: Joi.string().pattern(/^[A-Za-z0-9_-]{43}$/).required().description('32 random bytes, base64url; the HMAC key is this text. Shown only in this answer'),
  status: status.required(),
  created_at: timestampSchema.required(),
}).label('IssuedAssertionKey');
