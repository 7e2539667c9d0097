import express, { type Express, type RequestHandler, Router } from 'express';
import Joi from 'joi';
import type { Config } from '@cds/config';
import type { DataStore } from '@cds/data';
import { applicationAuth, errorHandler, notFoundHandler, operatorAuth, requestId, type RouteSpec } from '@cds/http';
import type { Logger } from 'winston';
import { domainRoutes } from './domains/domains.routes';
import { NOT_YET_SERVED } from './openapi/not-yet-served';
import { buildOpenApi } from './openapi/openapi';
import { operatorRoutes } from './operator/operator.routes';
import type { UseCaseContext } from './shared/context';
import { mountRoutes, type Route } from './shared/mount';

export interface ApiDeps {
  config: Config;
  logger: Logger;
  store: DataStore;
  /** Wakes the outbox relay after a commit that wrote outbox rows. */
  afterCommit?: () => void;
  now?: () => Date;
}

const LEGACY_SUNSET = new Date('2027-12-31T23:59:59Z').toUTCString();

const openApiSpec: RouteSpec = {
  method: 'get', path: '/v1/openapi.json', operationId: 'getOpenApi', tags: ['Meta'], security: 'none',
  summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1 document', schema: Joi.object().unknown(true) } },
};

function legacyHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Deprecation', 'true');
    res.setHeader('Sunset', LEGACY_SUNSET);
    res.setHeader('Link', '</v1/domains>; rel="successor-version"');
    next();
  };
}

/** Builds the API application; never listens, so tests can start it on port 0. */
export function createApp(deps: ApiDeps): Express {
  const { config, store } = deps;
  const ctx: UseCaseContext = {
    store,
    edgeTarget: config.edgeTarget,
    deploymentDomainLimit: config.deploymentDomainLimit,
    now: deps.now ?? (() => new Date()),
    afterCommit: deps.afterCommit ?? (() => undefined),
  };
  const v1 = domainRoutes(ctx, '/v1');
  const legacy = domainRoutes(ctx, '').map((r): Route => ({ ...r, spec: { ...r.spec, operationId: `legacy${r.spec.operationId[0]?.toUpperCase()}${r.spec.operationId.slice(1)}`, tags: ['Legacy'], deprecated: true } }));
  const operator = operatorRoutes(ctx);
  const specs = [openApiSpec, ...v1.map((r) => r.spec), ...operator.map((r) => r.spec), ...NOT_YET_SERVED, ...(config.enableLegacyApi ? legacy.map((r) => r.spec) : [])];
  const document = buildOpenApi(specs, '/');

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(requestId());

  app.get('/v1/openapi.json', (_req, res) => { res.status(200).json(document); });

  const auth = applicationAuth({ store, failuresPerMinute: config.v1AuthFailuresPerMinute, now: ctx.now });
  const v1Router = Router();
  v1Router.use(auth);
  mountRoutes(v1Router, v1, '/v1');
  v1Router.use(notFoundHandler());
  app.use('/v1', v1Router);

  if (config.enableLegacyApi) {
    const legacyRouter = Router();
    legacyRouter.use(legacyHeaders(), auth);
    mountRoutes(legacyRouter, legacy, '/domains');
    legacyRouter.use(notFoundHandler());
    app.use('/domains', legacyRouter);
  }

  const operatorRouter = Router();
  if (config.operatorApiEnabled) {
    operatorRouter.use(
      operatorAuth({ store, configuredToken: config.operatorToken ?? '', allowedCidrs: config.operatorAllowedCidrs, failuresPerMinute: config.operatorAuthFailuresPerMinute, now: ctx.now }),
    );
    mountRoutes(operatorRouter, operator, '/operator/v1');
  }
  operatorRouter.use(notFoundHandler());
  app.use('/operator/v1', operatorRouter);

  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return app;
}
