import Joi from 'joi';
import { route, type Route } from '../shared/mount';
import { backupHandler, type BackupOptions } from './backup';
import { errorResponse, operatorCommonResponses, operatorOperation } from './operator-route-parts';

export function backupRoutes(opts: BackupOptions): Route[] {
  const handle = backupHandler(opts);
  return [
    route({
      ...operatorOperation, method: 'get', path: '/operator/v1/backup', operationId: 'backup',
      summary: 'Stream a custom-format dump of the deployment database',
      description:
        '`pg_dump --format=custom --no-owner`, streamed as it is produced; restore it with `pg_restore`. It holds claim tokens, ' +
        'credential hashes and encrypted secrets. Off (404) unless `OPERATOR_BACKUP=true`; PostgreSQL only. A dump that fails ' +
        'midway ends the connection without finishing the body, so a truncated file is never mistaken for a complete one.',
      responses: {
        ...operatorCommonResponses,
        200: {
          description: 'The dump (`Content-Disposition: attachment; filename="custom-domains-<UTC timestamp>.dump"`)',
          contentType: 'application/octet-stream',
          schema: Joi.binary(),
        },
        404: errorResponse('not_found: backups are off, or the operator API is off'),
        409: errorResponse('backup_unavailable: the deployment does not use PostgreSQL'),
        429: errorResponse('rate_limited: another backup is running (Retry-After), or too many failed tokens'),
        503: errorResponse('service_unavailable: pg_dump could not start the dump'),
      },
    }, async (_req, res) => { await handle(res); }),
  ];
}
