import { errorMessage } from '@cds/core';

/** Runs an entry point; a start-up failure prints one line naming the service and exits 1. */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(`${service} failed to start: ${errorMessage(err)}`);
    process.exit(1);
  });
}
