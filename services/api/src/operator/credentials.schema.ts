import Joi from 'joi';
import { nullableTimestampSchema, timestampSchema, uuidSchema } from '@cds/core';
import { labelText } from './applications.schema';

export const credentialBody = Joi.object<{ name?: string }, true>({
  name: labelText.description('A label for the credential'),
}).label('CredentialIssue');

const credentialFields = {
  id: uuidSchema.required(),
  name: Joi.string().allow(null).required(),
  prefix: Joi.string().required(),
  status: Joi.string().valid('active', 'revoked', 'expired').required(),
  created_at: timestampSchema.required(),
  expires_at: nullableTimestampSchema.required(),
  revoked_at: nullableTimestampSchema.required(),
  last_used_at: nullableTimestampSchema.required(),
};

export const credentialResource = Joi.object(credentialFields).label('Credential');
export const issuedCredential = Joi.object({
  ...credentialFields,
  secret: Joi.string().pattern(/^cd_[0-9A-Za-z]{43}$/).required().description('The API key; shown only in this answer'),
}).label('IssuedCredential');
