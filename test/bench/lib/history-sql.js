// Templates and SQL helpers for seeding outbox and webhook history in the
// service's exact shapes (make bench-housekeeping, make bench-scale): payloads
// built by the real code (toDomainResource, domainEvent) with placeholders that
// SQL replaces per row.
'use strict';
const { eventTimestamp, domainEvent, toDomainResource } = require('@cds/core');

const EDGE_TARGET = 'edge.localhost';

// Placeholders in the templates, replaced per row in SQL.
const PH = { domainId: '00000000-0000-4000-8000-0000000000d0', appId: '00000000-0000-4000-8000-0000000000a0', eventId: '00000000-0000-4000-8000-0000000000e0', hostname: 'placeholder-hostname.invalid', token: 'placeholder-token' };
const RESOURCE_AT = new Date('2001-01-01T00:00:00.000Z');
const EVENT_AT = new Date('2002-02-02T00:00:00.000Z');

/** A template with the placeholders as SQL will replace them (`__TS__` resource times, `__ETS__` event time). */
function template(value) {
  return JSON.stringify(value).replaceAll(RESOURCE_AT.toISOString(), '__TS__').replaceAll(eventTimestamp(EVENT_AT), '__ETS__');
}

/** The domain resource at the time of an event of `type`, as the checker or the API emits it. */
function resource(type) {
  const deleted = type === 'domain.deleted';
  const status = deleted ? 'deleting' : type === 'domain.attention_required' ? 'attention_required' : 'ready';
  const failing = type === 'domain.attention_required';
  const check = (t, s) => ({ type: t, status: s, errorCode: s === 'failing' ? 'dns_record_missing' : null, message: s === 'failing' ? 'No CNAME record found.' : null, observedAt: RESOURCE_AT, nextCheckAt: deleted ? null : RESOURCE_AT });
  const checks = [check('ownership', 'passing'), check('routing', failing ? 'failing' : 'passing'), check('certificate', 'passing'), check('origin', 'passing')];
  const domain = {
    id: PH.domainId, hostname: PH.hostname, reference: 'shop-42', status, challengeToken: PH.token, metadata: { plan: 'pro', region: 'eu' },
    createdAt: RESOURCE_AT, updatedAt: RESOURCE_AT, deletedAt: deleted ? RESOURCE_AT : null,
  };
  return toDomainResource(domain, checks, { edgeTarget: EDGE_TARGET, edgeAddresses: [] });
}

const EVENT_TYPES = ['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted'];

/** event.emitted outbox payloads, one per event type. */
const outboxEventTemplates = () => EVENT_TYPES.map((type) => template({ ...domainEvent(type, PH.appId, resource(type), EVENT_AT), event_id: PH.eventId }));
/** Webhook bodies as the dispatcher's fan-out writes them: the event without its application. */
const deliveryBodyTemplates = () =>
  EVENT_TYPES.map((type) => template({ id: PH.eventId, type, created_at: eventTimestamp(EVENT_AT), data: { domain: resource(type) } }));

/** A v4-shaped uuid derived from a text (md5), so that rows can name each other. */
const UUID_FN = `CREATE FUNCTION pg_temp.v4(t text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT (substr(h, 1, 12) || '4' || substr(h, 14, 3) || substr('89ab', get_byte(decode(substr(h, 17, 2), 'hex'), 0) % 4 + 1, 1) || substr(h, 18, 15))::uuid
  FROM md5(t) AS h $$`;

/** SQL text of an ISO timestamp with `Z` (isoTimestamp) or with `+00:00` (eventTimestamp). */
const iso = (col) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const eventIso = (col) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')`;

/** Fills a template: $ids of the placeholders replaced by SQL expressions. */
const fill = (tpl, { domainId, appId, eventId, hostname, token, ts, ets }) =>
  `replace(replace(replace(replace(replace(replace(replace(${tpl}, '${PH.domainId}', ${domainId}::text), '${PH.appId}', ${appId}::text),
    '${PH.eventId}', ${eventId}::text), '${PH.hostname}', ${hostname}), '${PH.token}', ${token}), '__TS__', ${ts}), '__ETS__', ${ets})`;

module.exports = { PH, EVENT_TYPES, template, resource, outboxEventTemplates, deliveryBodyTemplates, UUID_FN, iso, eventIso, fill };
