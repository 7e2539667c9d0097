import Joi from 'joi';
import { CERT_ISSUERS } from '@cds/core';
import { RENEWAL_HOSTNAMES_LISTED, type RenewalRequestBody, type RenewalRequestResult } from './certificate-renewal';

export const renewalRequestBody = Joi.object<RenewalRequestBody, true>({
  hostname: Joi.string().description('The hostname whose certificate is issued again (normalized as at registration)'),
  all: Joi.boolean().valid(true).description('`true`: every live domain\'s certificate, or those of `issuer` and `directory_url`'),
  issuer: Joi.string().valid(...CERT_ISSUERS).description('With `all`: only certificates of this issuer'),
  directory_url: Joi.string().uri({ scheme: ['https', 'http'] }).description('With `all`: only certificates issued by this ACME directory'),
}).xor('hostname', 'all').without('hostname', ['issuer', 'directory_url']).label('CertificateRenewalRequest');

export const renewalRequestResult = Joi.object<RenewalRequestResult, true>({
  marked: Joi.number().integer().min(0).required().description('Certificates marked'),
  hostnames: Joi.array().items(Joi.string()).max(RENEWAL_HOSTNAMES_LISTED).required()
    .description(`Their hostnames, sorted; the first ${RENEWAL_HOSTNAMES_LISTED} when more were marked`),
}).label('CertificateRenewalResult');
