// GET /operator/v1/backup: streams `pg_dump --format=custom` of the deployment
// database. A dump that fails after its first byte aborts the response, so the
// client sees a broken transfer and never a complete-looking file.
import { spawn } from 'node:child_process';
import type { Response } from 'express';
import { AppError, rateLimited } from '@cds/core';
import type { DatabaseKind } from '@cds/data';
import { childLogger, type Logger } from '@cds/logging';
import { tryBackupLock } from './backup-lock';

export interface BackupOptions {
  enabled: boolean;
  storeKind: DatabaseKind;
  databaseUrl: string;
  logger: Logger;
  /** The pg_dump program (tests inject a failing one). */
  pgDump: string;
  now: () => Date;
}

const RETRY_AFTER_SECONDS = 30;
const STDERR_MAX_BYTES = 16 * 1024;

/** `custom-domains-20260110T120000Z.dump` */
function backupFileName(at: Date): string {
  return `custom-domains-${at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')}.dump`;
}

/**
 * The URL without its password, which goes to pg_dump in PGPASSWORD so that it
 * does not show in the process list. The child gets no other variable of ours.
 */
function dumpConnection(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.toString(), env: password ? { PGPASSWORD: password } : {} };
}

/** Handles one backup request; a refusal is thrown as an AppError before anything is written. Its log lines name the request (`request_id`). */
export function backupHandler(opts: BackupOptions): (res: Response) => Promise<void> {
  let running = false; // this process's dump; the advisory lock covers the other replicas
  const busy = () => rateLimited(RETRY_AFTER_SECONDS, 'A backup is already running; try again when it has finished.');

  return async (res) => {
    if (!opts.enabled) throw new AppError('not_found', 'Backups are turned off: set OPERATOR_BACKUP=true to enable them.');
    if (opts.storeKind !== 'postgres') {
      throw new AppError('backup_unavailable', 'Backups are available on PostgreSQL only; this deployment uses SQLite (copy its data directory instead).');
    }
    if (running) throw busy();
    running = true;
    const logger = childLogger(opts.logger, { request_id: res.req.requestId });
    let release: (() => Promise<void>) | null = null;
    try {
      release = await tryBackupLock(opts.databaseUrl).catch((error: unknown) => {
        logger.error('backup: cannot open a database session for the lock', { error: String(error) });
        throw new AppError('service_unavailable', 'The backup could not start: the database is unreachable.');
      });
      if (!release) throw busy();
      await streamDump({ ...opts, logger }, res);
    } finally {
      await release?.();
      running = false;
    }
  };
}

/** Resolves when the dump has ended; rejects with an AppError when it failed before its first byte. */
function streamDump(opts: BackupOptions, res: Response): Promise<void> {
  const { url, env } = dumpConnection(opts.databaseUrl);
  const child = spawn(opts.pgDump, ['--format=custom', '--no-owner', `--dbname=${url}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    if (stderr.length < STDERR_MAX_BYTES) stderr += text;
  });

  return new Promise<void>((resolve, reject) => {
    let started = false;
    let clientGone = false;
    let settled = false;
    const finish = (error?: AppError) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve();
    };
    const unavailable = (why: string) => {
      if (settled) return;
      opts.logger.error('backup: pg_dump failed before writing anything', { why, stderr: stderr.trim() });
      finish(new AppError('service_unavailable', `The backup could not start: ${why}. The API log has pg_dump's output.`));
    };

    child.stdout.once('data', (first: Buffer) => {
      started = true;
      res.status(200);
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Disposition', `attachment; filename="${backupFileName(opts.now())}"`);
      res.setHeader('Cache-Control', 'no-store');
      res.write(first);
      child.stdout.pipe(res, { end: false });
    });
    res.on('close', () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      clientGone = true; // stop dumping for nobody
      child.kill('SIGTERM');
    });
    child.on('error', (error) => {
      if (!started) unavailable(`pg_dump could not be run (${error.message})`);
    });
    child.on('close', (code, signal) => {
      if (clientGone) {
        opts.logger.warn('backup: the client went away; pg_dump was stopped', { bytes_sent: res.socket?.bytesWritten });
      } else if (!started) {
        unavailable(code === 0 ? 'pg_dump wrote nothing' : `pg_dump ${code === null ? `was stopped by ${signal}` : `exited with status ${code}`}`);
      } else if (code === 0) {
        res.end();
      } else {
        // Destroying the socket leaves the chunked body unterminated: the client sees an aborted transfer.
        opts.logger.error('backup: pg_dump failed while streaming; the response was aborted', { code, signal, stderr: stderr.trim() });
        res.destroy();
      }
      finish();
    });
  });
}
