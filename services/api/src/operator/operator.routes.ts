import Joi from 'joi';
import type { UseCaseContext } from '../shared/context';
import { route, type Route } from '../shared/mount';
import { createApplication, deleteApplication, getApplication, listApplications, updateApplication } from './applications';
import { applicationDeletion, applicationResource, createApplicationBody, deleteApplicationQuery, updateApplicationBody } from './applications.schema';
import { deleteCredential, issueCredential, listCredentials, revokeCredential, rotateCredential } from './credentials';
import { credentialBody, credentialResource, issuedCredential } from './credentials.schema';
import { APPLICATIONS_PATH as P, errorResponse, operatorCommonResponses as common, operatorOperation as op, slugParam } from './operator-route-parts';

const credentialParams = { ...slugParam, credential_id: { description: 'Credential id', format: 'uuid' as const } };

export function operatorRoutes(ctx: UseCaseContext): Route[] {
  return [
    route({ ...op, method: 'get', path: P, operationId: 'listApplications', summary: 'List applications',
      responses: { ...common, 200: { description: 'Applications, oldest first', schema: Joi.array().items(applicationResource) } } },
    async (_req, res) => { res.status(200).json(await listApplications(ctx)); }),
    route({ ...op, method: 'post', path: P, operationId: 'createApplication', summary: 'Create an application', body: createApplicationBody, bodyRequired: true,
      responses: { ...common, 201: { description: 'Created', schema: applicationResource }, 409: errorResponse('application_exists') } },
    async (_req, res, { body }) => { res.status(201).json(await createApplication(ctx, body)); }),
    route({ ...op, method: 'get', path: `${P}/{slug}`, operationId: 'getApplication', summary: 'Get an application', pathParams: slugParam,
      responses: { ...common, 200: { description: 'The application', schema: applicationResource } } },
    async (_req, res, { params }) => { res.status(200).json(await getApplication(ctx, params.slug)); }),
    route({ ...op, method: 'patch', path: `${P}/{slug}`, operationId: 'updateApplication', summary: 'Update, suspend or resume an application; change limits',
      pathParams: slugParam, body: updateApplicationBody, bodyRequired: true,
      responses: { ...common, 200: { description: 'Updated', schema: applicationResource } } },
    async (_req, res, { params, body }) => { res.status(200).json(await updateApplication(ctx, params.slug, body)); }),
    route({ ...op, method: 'delete', path: `${P}/{slug}`, operationId: 'deleteApplication', summary: 'Delete an application (confirm with its slug)',
      pathParams: slugParam, query: deleteApplicationQuery,
      responses: { ...common, 200: { description: 'Deleted', schema: applicationDeletion }, 409: errorResponse('application_has_live_domains'), 422: errorResponse('confirmation_required, or validation_error for the query') } },
    async (_req, res, { params, query }) => {
      res.status(200).json(await deleteApplication(ctx, params.slug, query.confirm, query.delete_domains));
    }),
    route({ ...op, method: 'get', path: `${P}/{slug}/credentials`, operationId: 'listCredentials', summary: 'List credentials', pathParams: slugParam,
      responses: { ...common, 200: { description: 'Credentials, oldest first', schema: Joi.array().items(credentialResource) } } },
    async (_req, res, { params }) => { res.status(200).json(await listCredentials(ctx, params.slug)); }),
    route({ ...op, method: 'post', path: `${P}/{slug}/credentials`, operationId: 'issueCredential', summary: 'Issue a credential; the secret is returned once',
      pathParams: slugParam, body: credentialBody,
      responses: { ...common, 201: { description: 'Issued', schema: issuedCredential }, 409: errorResponse('credential_limit_reached') } },
    async (_req, res, { params, body }) => { res.status(201).json(await issueCredential(ctx, params.slug, body?.name ?? null)); }),
    route({ ...op, method: 'post', path: `${P}/{slug}/credentials/{credential_id}/rotate`, operationId: 'rotateCredential',
      summary: 'Rotate a credential; the old one stays valid for 24 hours', pathParams: credentialParams, body: credentialBody,
      responses: { ...common, 201: { description: 'The new credential', schema: issuedCredential }, 409: errorResponse('invalid_status_transition or credential_limit_reached') } },
    async (_req, res, { params, body }) => {
      res.status(201).json(await rotateCredential(ctx, params.slug, params.credential_id, body?.name ?? null));
    }),
    route({ ...op, method: 'post', path: `${P}/{slug}/credentials/{credential_id}/revoke`, operationId: 'revokeCredential', summary: 'Revoke a credential at once',
      pathParams: credentialParams, responses: { ...common, 200: { description: 'Revoked', schema: credentialResource } } },
    async (_req, res, { params }) => { res.status(200).json(await revokeCredential(ctx, params.slug, params.credential_id)); }),
    route({ ...op, method: 'delete', path: `${P}/{slug}/credentials/{credential_id}`, operationId: 'deleteCredential', summary: 'Delete a credential',
      pathParams: credentialParams, responses: { ...common, 204: { description: 'Deleted' } } },
    async (_req, res, { params }) => {
      await deleteCredential(ctx, params.slug, params.credential_id);
      res.status(204).end();
    }),
  ];
}
