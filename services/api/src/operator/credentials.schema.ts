import Joi from 'joi';
import { nullableTimestamp, timestamp, uuid } from '../shared/common.schema';
import { labelText } from './applications.schema';

export const credentialBody = Joi.object({
  name: labelText.description('A label for the credential'),
}).label('CredentialIssue');

const credentialFields = {
  id: uuid.required(),
  name: Joi.string().allow(null).required(),
  prefix: Joi.string().required(),
  status: Joi.string().valid('active', 'revoked', 'expired').required(),
  created_at: timestamp.required(),
  expires_at: nullableTimestamp.required(),
  revoked_at: nullableTimestamp.required(),
  last_used_at: nullableTimestamp.required(),
};

export const credentialResource = Joi.object(credentialFields).label('Credential');
export const issuedCredential = Joi.object({
  ...credentialFields,
  secret: Joi.string().pattern(/^cd_[0-9A-Za-z]{43}$/).required().description('The API key; shown only in this answer'),
}).label('IssuedCredential');
