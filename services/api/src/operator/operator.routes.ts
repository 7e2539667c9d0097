import Joi from 'joi';
import { errorEnvelope } from '../shared/common.schema';
import type { UseCaseContext } from '../shared/context';
import { pathParam, type Route } from '../shared/mount';
import { createApplication, deleteApplication, getApplication, listApplications, updateApplication } from './applications';
import { applicationDeletion, applicationResource, createApplicationBody, deleteApplicationQuery, updateApplicationBody } from './applications.schema';
import { deleteCredential, issueCredential, listCredentials, revokeCredential, rotateCredential } from './credentials';
import { credentialBody, credentialResource, issuedCredential } from './credentials.schema';

const P = '/operator/v1/applications';
const slugParam = { slug: { description: 'Application slug' } };
const credentialParams = { ...slugParam, credential_id: { description: 'Credential id', format: 'uuid' as const } };
const errors = (description: string) => ({ description, schema: errorEnvelope });
// 413 and 422 of routes that read a body are added by the document builder.
const common = {
  401: errors('Missing or wrong operator token'),
  403: errors('Client address not permitted'),
  404: errors('Not found, or the operator API is off'),
  429: errors('Too many failed tokens'),
};
const op = { tags: ['Operator'], security: 'OperatorToken' as const };

export function operatorRoutes(ctx: UseCaseContext): Route[] {
  return [
    {
      spec: { ...op, method: 'get', path: P, operationId: 'listApplications', summary: 'List applications',
        responses: { ...common, 200: { description: 'Applications, oldest first', schema: Joi.array().items(applicationResource) } } },
      handler: async (_req, res) => { res.status(200).json(await listApplications(ctx)); },
    },
    {
      spec: { ...op, method: 'post', path: P, operationId: 'createApplication', summary: 'Create an application', body: createApplicationBody, bodyRequired: true,
        responses: { ...common, 201: { description: 'Created', schema: applicationResource }, 409: errors('application_exists') } },
      handler: async (req, res) => { res.status(201).json(await createApplication(ctx, req.body)); },
    },
    {
      spec: { ...op, method: 'get', path: `${P}/{slug}`, operationId: 'getApplication', summary: 'Get an application', pathParams: slugParam,
        responses: { ...common, 200: { description: 'The application', schema: applicationResource } } },
      handler: async (req, res) => { res.status(200).json(await getApplication(ctx, pathParam(req, 'slug'))); },
    },
    {
      spec: { ...op, method: 'patch', path: `${P}/{slug}`, operationId: 'updateApplication', summary: 'Update, suspend or resume an application; change limits',
        pathParams: slugParam, body: updateApplicationBody, bodyRequired: true,
        responses: { ...common, 200: { description: 'Updated', schema: applicationResource } } },
      handler: async (req, res) => { res.status(200).json(await updateApplication(ctx, pathParam(req, 'slug'), req.body)); },
    },
    {
      spec: { ...op, method: 'delete', path: `${P}/{slug}`, operationId: 'deleteApplication', summary: 'Delete an application (confirm with its slug)',
        pathParams: slugParam, query: deleteApplicationQuery,
        responses: { ...common, 200: { description: 'Deleted', schema: applicationDeletion }, 409: errors('application_has_live_domains'), 422: errors('confirmation_required, or validation_error for the query') } },
      handler: async (req, res, { query }) => {
        res.status(200).json(await deleteApplication(ctx, pathParam(req, 'slug'), query.confirm as string, query.delete_domains as boolean));
      },
    },
    {
      spec: { ...op, method: 'get', path: `${P}/{slug}/credentials`, operationId: 'listCredentials', summary: 'List credentials', pathParams: slugParam,
        responses: { ...common, 200: { description: 'Credentials, oldest first', schema: Joi.array().items(credentialResource) } } },
      handler: async (req, res) => { res.status(200).json(await listCredentials(ctx, pathParam(req, 'slug'))); },
    },
    {
      spec: { ...op, method: 'post', path: `${P}/{slug}/credentials`, operationId: 'issueCredential', summary: 'Issue a credential; the secret is returned once',
        pathParams: slugParam, body: credentialBody,
        responses: { ...common, 201: { description: 'Issued', schema: issuedCredential }, 409: errors('credential_limit_reached') } },
      handler: async (req, res) => { res.status(201).json(await issueCredential(ctx, pathParam(req, 'slug'), req.body)); },
    },
    {
      spec: { ...op, method: 'post', path: `${P}/{slug}/credentials/{credential_id}/rotate`, operationId: 'rotateCredential',
        summary: 'Rotate a credential; the old one stays valid for 24 hours', pathParams: credentialParams, body: credentialBody,
        responses: { ...common, 201: { description: 'The new credential', schema: issuedCredential }, 409: errors('invalid_status_transition or credential_limit_reached') } },
      handler: async (req, res) => { res.status(201).json(await rotateCredential(ctx, pathParam(req, 'slug'), pathParam(req, 'credential_id'), req.body)); },
    },
    {
      spec: { ...op, method: 'post', path: `${P}/{slug}/credentials/{credential_id}/revoke`, operationId: 'revokeCredential', summary: 'Revoke a credential at once',
        pathParams: credentialParams, responses: { ...common, 200: { description: 'Revoked', schema: credentialResource } } },
      handler: async (req, res) => { res.status(200).json(await revokeCredential(ctx, pathParam(req, 'slug'), pathParam(req, 'credential_id'))); },
    },
    {
      spec: { ...op, method: 'delete', path: `${P}/{slug}/credentials/{credential_id}`, operationId: 'deleteCredential', summary: 'Delete a credential',
        pathParams: credentialParams, responses: { ...common, 204: { description: 'Deleted' } } },
      handler: async (req, res) => {
        await deleteCredential(ctx, pathParam(req, 'slug'), pathParam(req, 'credential_id'));
        res.status(204).end();
      },
    },
  ];
}
