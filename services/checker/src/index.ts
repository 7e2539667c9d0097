export { CHECKER_QUEUE, startChecker, type Checker, type CheckerDeps } from './checker';
export { createDnsLookups, type DnsLookups } from './dns-lookups';
export { InternalCa, INTERNAL_CA_SETTINGS } from './certificates/internal-ca';
export { AcmeIssuer, ACME_REQUEST_TIMEOUT_MS, ACME_SETTINGS, ARI_REQUEST_TIMEOUT_MS, FAILED_VALIDATIONS_PER_HOUR, type AcmeIssuerOptions } from './certificates/acme-issuer';
export { AcmeBudgetWait, AcmeOrderBudget, applicationOrdersKey, DEPLOYMENT_ORDERS_KEY } from './certificates/acme-order-budget';
export { DirectoryFailure, IssuanceError, type CertificateIssuer, type IssuedCertificate } from './certificates/issuer';
export { FallbackAcmeIssuer, type FallbackAcmeIssuerOptions } from './certificates/fallback-acme-issuer';
export { DIRECTORY_SET_ASIDE_MS } from './certificates/directory-set-aside';
export { ariCertId } from './certificates/renewal';
