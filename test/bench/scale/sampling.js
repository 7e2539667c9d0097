// Timing and CPU sampling for the scale benchmark (make bench-scale).
'use strict';
const { readFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process in ms, 0 when it is gone. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU of the database's client backends (but the sampling session's) and of the given processes. */
async function cpuSnapshot(pg, pids) {
  const { rows } = await pg.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
  const db = new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
  return { db, proc: pids.reduce((sum, pid) => sum + cpuMs(pid), 0) };
}

/** ms of CPU between two snapshots: backends that started meanwhile count from 0. */
function cpuBetween(a, b) {
  let db = 0;
  for (const [pid, ms] of b.db) db += ms - (a.db.get(pid) ?? 0);
  return { db, proc: b.proc - a.proc };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Runs `fn(i)` n times one after the other (after `warmup` unrecorded calls
 * with negative i) and returns p50/p99 in ms and CPU ms per call.
 */
async function series(n, fn, { pg, pids = [], warmup = 3 } = {}) {
  for (let i = -warmup; i < 0; i += 1) await fn(i);
  const before = pg ? await cpuSnapshot(pg, pids) : null;
  const times = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  const cpu = before ? cpuBetween(before, await cpuSnapshot(pg, pids)) : null;
  times.sort((a, b) => a - b);
  const round = (v) => Math.round(v * 100) / 100;
  return {
    n, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times[times.length - 1]),
    ...(cpu ? { db_cpu_ms: round(cpu.db / n), app_cpu_ms: round(cpu.proc / n) } : {}),
  };
}

module.exports = { series, cpuMs };
