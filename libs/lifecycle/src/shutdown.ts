import type { Logger } from '@cds/logging';

/**
 * Time the services give their shutdown steps after SIGTERM. Fixed here, not
 * configurable: the Helm chart and k8s/ derive terminationGracePeriodSeconds
 * from it (preStop sleep + this + a margin), and a test holds them to it.
 */
export const SHUTDOWN_DEADLINE_MS = 25_000;

/** A named step of the shutdown sequence. */
export type ShutdownStep = [name: string, run: () => Promise<void> | void];

/**
 * On SIGTERM/SIGINT runs the steps in order (readiness off, stop accepting,
 * drain, close bus, close database) and exits 0; a timer under Kubernetes'
 * grace period forces exit 1 if a step hangs.
 */
export function onShutdown(steps: ShutdownStep[], logger: Logger, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let started = false;
  const run = async (signal: string) => {
    if (started) return;
    started = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting', { deadline_ms: deadlineMs });
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        logger.error('shutdown step failed', { step: name, error: String(err) });
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void run('SIGTERM'));
  process.once('SIGINT', () => void run('SIGINT'));
}
