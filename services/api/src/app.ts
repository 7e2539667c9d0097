import express, { type Express, type Request, type RequestHandler, Router } from 'express';
import Joi from 'joi';
import type { Config } from '@cds/config';
import type { DataStore } from '@cds/data';
import { accessLog, applicationAuth, errorHandler, notFoundHandler, operatorAuth, requestId, type RouteSpec } from '@cds/http';
import { httpMetricsMiddleware, limiterRejectionTap } from '@cds/metrics';
import type { Logger } from 'winston';
import { domainRoutes } from './domains/domains.routes';
import { NOT_YET_SERVED } from './openapi/not-yet-served';
import { buildOpenApi } from './openapi/openapi';
import { operatorRoutes } from './operator/operator.routes';
import { operatorResourceRoutes } from './operator/operator-resources.routes';
import { backupRoutes } from './operator/backup.routes';
import { doctorRoutes } from './operator/doctor.routes';
import type { UseCaseContext } from './shared/context';
import { mountRoutes, type Route } from './shared/mount';
import { webhookRoutes } from './webhooks/webhooks.routes';
import { webhookSettings } from './webhooks/webhook-settings';

export interface ApiDeps {
  config: Config;
  logger: Logger;
  store: DataStore;
  /** Wakes the outbox relay after a commit that wrote outbox rows. */
  afterCommit?: () => void;
  now?: () => Date;
  /** The pg_dump program behind GET /operator/v1/backup (default `pg_dump` on PATH). */
  pgDump?: string;
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

/** Which limiter refused: the credential throttles run before a route matches (req.route unset); only recheck and backup limit inside a route. */
function limiterOf(req: Request): string {
  if (req.route) return req.originalUrl.startsWith('/operator/') ? 'backup' : 'recheck';
  if (req.principal) return 'api_requests';
  return req.originalUrl.startsWith('/operator/') ? 'operator_auth_failures' : 'auth_failures';
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
  const v1 = [...domainRoutes(ctx, '/v1'), ...webhookRoutes(ctx, webhookSettings(config))];
  const legacy = domainRoutes(ctx, '').map((r): Route => ({ ...r, spec: { ...r.spec, operationId: `legacy${r.spec.operationId[0]?.toUpperCase()}${r.spec.operationId.slice(1)}`, tags: ['Legacy'], deprecated: true } }));
  const operator = [
    ...operatorRoutes(ctx),
    ...operatorResourceRoutes(ctx, config),
    ...backupRoutes({ enabled: config.operatorBackup, storeKind: store.kind, databaseUrl: config.databaseUrl, logger: deps.logger, pgDump: deps.pgDump ?? 'pg_dump', now: ctx.now }),
    ...doctorRoutes({ config, store, amqpUrl: config.amqpUrl, now: ctx.now }),
  ];
  const specs = [openApiSpec, ...v1.map((r) => r.spec), ...operator.map((r) => r.spec), ...NOT_YET_SERVED, ...(config.enableLegacyApi ? legacy.map((r) => r.spec) : [])];
  const document = buildOpenApi(specs, '/');

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(httpMetricsMiddleware({ server: 'api', routes: specs.map((s) => s.path) }), requestId(), accessLog(deps.logger));

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
  app.use(limiterRejectionTap('api', limiterOf), errorHandler(deps.logger));
  return app;
}
