import express, { type Express, type Request, type RequestHandler, Router } from 'express';
import Joi from 'joi';
import { brokerConnection, databaseConnection, type Config } from '@cds/config';
import type { DataStore } from '@cds/data';
import { accessLog, applicationAuth, errorHandler, notFoundHandler, operatorAuth, requestId, type RouteSpec } from '@cds/http';
import type { Logger } from '@cds/logging';
import { httpMetricsMiddleware, limiterRejectionTap } from '@cds/metrics';
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

/** Which limiter refused: the credential throttles run before a route matches (req.route unset); recheck, webhook replays and backup limit inside a route. */
function limiterOf(req: Request): string {
  if (req.route) return req.originalUrl.startsWith('/operator/') ? 'backup' : req.originalUrl.startsWith('/v1/webhooks/') ? 'webhook_pending' : 'recheck';
  if (req.principal) return 'api_requests';
  return req.originalUrl.startsWith('/operator/') ? 'operator_auth_failures' : 'auth_failures';
}

/** What every listener of the API is built from: the routes (over one use-case context) and their OpenAPI document. */
interface ApiParts {
  v1: Route[];
  legacy: Route[];
  operator: Route[];
  document: Record<string, unknown>;
  routePaths: string[];
}

function apiParts(deps: ApiDeps): ApiParts {
  const { config, store } = deps;
  const ctx: UseCaseContext = {
    store,
    edgeTarget: config.edgeTarget,
    edgeAddresses: config.edgeAddresses,
    acmeDnsZone: config.acmeDnsZone,
    deploymentDomainLimit: config.deploymentDomainLimit,
    now: deps.now ?? (() => new Date()),
    afterCommit: deps.afterCommit ?? (() => undefined),
  };
  const v1 = [...domainRoutes(ctx, '/v1'), ...webhookRoutes(ctx, webhookSettings(config))];
  const legacy = domainRoutes(ctx, '').map((r): Route => ({ ...r, spec: { ...r.spec, operationId: `legacy${r.spec.operationId[0]?.toUpperCase()}${r.spec.operationId.slice(1)}`, tags: ['Legacy'], deprecated: true } }));
  const operator = [
    ...operatorRoutes(ctx),
    ...operatorResourceRoutes(ctx, config),
    ...backupRoutes({
      enabled: config.operatorBackup, storeKind: store.kind, databaseUrl: config.databaseUrl,
      databaseCaBundle: config.databaseCaBundle, databaseCa: databaseConnection(config).ca, logger: deps.logger, pgDump: deps.pgDump ?? 'pg_dump', now: ctx.now }),
    ...doctorRoutes({ config, store, amqpUrl: config.amqpUrl, amqpCa: brokerConnection(config)?.ca, now: ctx.now }),
  ];
  const specs = [openApiSpec, ...v1.map((r) => r.spec), ...operator.map((r) => r.spec), ...NOT_YET_SERVED, ...(config.enableLegacyApi ? legacy.map((r) => r.spec) : [])];
  return { v1, legacy, operator, document: buildOpenApi(specs, '/'), routePaths: specs.map((s) => s.path) };
}

/** An express app with what every API listener starts with: proxy trust, metrics, request id, access log. */
function listenerApp(deps: ApiDeps, parts: ApiParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  app.use(httpMetricsMiddleware({ server: 'api', routes: parts.routePaths }), requestId(), accessLog(deps.logger));
  return app;
}

/** What every API listener ends with: 404 for the rest, then the contract's error envelope. */
function closeApp(app: Express, deps: ApiDeps): Express {
  app.use(notFoundHandler());
  app.use(limiterRejectionTap('api', limiterOf), errorHandler(deps.logger));
  return app;
}

/** /operator/v1: the token check and the operator routes when served here, else 404 `not_found` for every path. */
function operatorRouter(deps: ApiDeps, routes: readonly Route[], served: boolean): Router {
  const { config, store } = deps;
  const router = Router();
  if (served) {
    router.use(
      operatorAuth({ store, configuredToken: config.operatorToken ?? '', allowedCidrs: config.operatorAllowedCidrs, failuresPerMinute: config.operatorAuthFailuresPerMinute, now: deps.now }),
    );
    mountRoutes(router, routes, '/operator/v1');
  }
  router.use(notFoundHandler());
  return router;
}

/**
 * Builds the API application; never listens, so tests can start it on port 0.
 * With OPERATOR_PORT set the operator API is not served here (404 on every
 * `/operator/v1` path) but by `createOperatorApp` on that port.
 */
export function createApp(deps: ApiDeps): Express {
  const { config, store } = deps;
  const parts = apiParts(deps);
  const app = listenerApp(deps, parts);

  app.get('/v1/openapi.json', (_req, res) => { res.status(200).json(parts.document); });

  const auth = applicationAuth({ store, failuresPerMinute: config.v1AuthFailuresPerMinute, now: deps.now });
  const v1Router = Router();
  v1Router.use(auth);
  mountRoutes(v1Router, parts.v1, '/v1');
  v1Router.use(notFoundHandler());
  app.use('/v1', v1Router);

  if (config.enableLegacyApi) {
    const legacyRouter = Router();
    legacyRouter.use(legacyHeaders(), auth);
    mountRoutes(legacyRouter, parts.legacy, '/domains');
    legacyRouter.use(notFoundHandler());
    app.use('/domains', legacyRouter);
  }

  app.use('/operator/v1', operatorRouter(deps, parts.operator, config.operatorApiEnabled && config.operatorPort === null));
  return closeApp(app, deps);
}

/**
 * The listener of OPERATOR_PORT: `/operator/v1` alone (404 `not_found`
 * elsewhere, and everywhere when OPERATOR_API_ENABLED=false). Never listens.
 */
export function createOperatorApp(deps: ApiDeps): Express {
  const parts = apiParts(deps);
  const app = listenerApp(deps, parts);
  app.use('/operator/v1', operatorRouter(deps, parts.operator, deps.config.operatorApiEnabled));
  return closeApp(app, deps);
}
