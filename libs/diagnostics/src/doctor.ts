import type { Config } from '@cds/config';
import type { DataStore } from '@cds/data';
import { overallStatus, runCheck, type DoctorReport } from './check';
import { acmeCheck } from './checks/acme.check';
import { brokerChecks } from './checks/broker.checks';
import { databaseChecks } from './checks/database.checks';
import { dnsChecks } from './checks/dns.checks';
import { sealedValuesCheck } from './checks/sealed-values.check';

/** The settings the checks read. */
export type DoctorConfig = Pick<Config, 'certIssuer' | 'acmeDirectories' | 'acmeCaBundle' | 'dnsServers' | 'edgeTarget'> & {
  /** Unset or null where the keys are not at hand (`cdctl doctor` in a shell without them): that check warns. */
  dataEncryptionKeys?: Config['dataEncryptionKeys'] | null;
};

export interface DoctorDeps {
  config: DoctorConfig;
  store: DataStore;
  /** The deployment's RabbitMQ; unset or null: the in-process bus. */
  amqpUrl?: string | null;
  /** PEM certificates of the CAs trusted for the broker (AMQP_CA_BUNDLE). */
  amqpCa?: string;
  now?: () => Date;
}

/**
 * Runs every check at once (each with its own deadline) and reports them in a
 * fixed order; it never throws for a failing dependency, that is a failed check.
 */
export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const now = deps.now ?? (() => new Date());
  const broker = brokerChecks(deps.amqpUrl ?? null, deps.amqpCa);
  const checks = [...databaseChecks(deps.store, now), sealedValuesCheck(deps.store, deps.config.dataEncryptionKeys ?? null), ...broker.checks, acmeCheck(deps.config), ...dnsChecks(deps.config)];
  try {
    const results = await Promise.all(checks.map(runCheck));
    return { status: overallStatus(results), checks: results };
  } finally {
    await broker.close();
  }
}
