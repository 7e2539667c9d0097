// GET /operator/v1/backup: streams `pg_dump --format=custom` of the deployment
// database. A dump that fails after its first byte aborts the response, so the
// client sees a broken transfer and never a complete-looking file.
import { spawn } from 'node:child_process';
import type { Response } from 'express';
import { AppError, namesCertificateFiles, postgresSslMode, rateLimited, type PostgresSslMode } from '@cds/core';
import type { DatabaseKind } from '@cds/data';
import { childLogger, type Logger } from '@cds/logging';
import { tryBackupLock } from './backup-lock';

export interface BackupOptions {
  enabled: boolean;
  storeKind: DatabaseKind;
  databaseUrl: string;
  /** DATABASE_CA_BUNDLE: the path, given to pg_dump (null when unset). */
  databaseCaBundle: string | null;
  /** DATABASE_CA_BUNDLE's certificates, for the lock's own connection. */
  databaseCa?: string;
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

/** pg's TLS parameters that libpq does not read as pg does (`ssl`, `uselibpqcompat`) or at all. */
const PG_TLS_PARAMS = ['sslmode', 'ssl', 'uselibpqcompat'] as const;

/**
 * libpq's sslmode for what the URL asks of the service (libs/data, database-url.ts).
 * With a CA bundle the service checks the chain and the host name unless the URL
 * says `verify-ca`; libpq's `require` would check the chain alone and `prefer`
 * would fall back to plain text, so both become `verify-full`, as does a URL
 * without an sslmode. Without a bundle libpq has no CA to check against (the
 * service has node's), so the URL's mode is kept as libpq reads it: pg's
 * `no-verify` and pg's `ssl=true` are libpq's `require` (TLS, nothing checked).
 */
function libpqSslMode(mode: PostgresSslMode | null, withCa: boolean, fromSslFlag: boolean): string | null {
  if (withCa) return mode === 'verify-ca' ? 'verify-ca' : 'verify-full';
  if (mode === 'no-verify' || (fromSslFlag && mode === 'verify-full')) return 'require';
  return mode;
}

/**
 * The URL and environment pg_dump runs with: the password goes in PGPASSWORD so
 * that it does not show in the process list, DATABASE_CA_BUNDLE in PGSSLROOTCERT,
 * and the URL's TLS parameters are spelled as libpq reads them with the meaning
 * they have to the service. A URL naming certificate files (sslrootcert, …) is
 * read by pg_dump as by pg. The child gets no other variable of ours.
 */
export function pgDumpConnection(databaseUrl: string, caBundle: string | null): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  const env: NodeJS.ProcessEnv = password ? { PGPASSWORD: password } : {};
  if (caBundle !== null) env.PGSSLROOTCERT = caBundle;
  const mode = postgresSslMode(databaseUrl);
  if ((caBundle !== null || mode !== null) && !namesCertificateFiles(databaseUrl)) {
    const fromSslFlag = !url.searchParams.has('sslmode');
    for (const name of PG_TLS_PARAMS) url.searchParams.delete(name);
    const libpqMode = libpqSslMode(mode, caBundle !== null, fromSslFlag);
    if (libpqMode !== null) url.searchParams.set('sslmode', libpqMode);
  }
  return { url: url.toString(), env };
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
      release = await tryBackupLock(opts.databaseUrl, opts.databaseCa).catch((error: unknown) => {
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
  const { url, env } = pgDumpConnection(opts.databaseUrl, opts.databaseCaBundle);
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
