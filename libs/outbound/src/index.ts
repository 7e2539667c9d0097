export {
  ORIGIN_PROBE_TIMEOUT_MS,
  PROBE_FAILURE,
  probeOrigin,
  probeTarget,
  trustedCasWithBundle,
  type OriginProbeRequest,
  type OriginProbeResult,
  type ProbeFailureReason,
} from './origin-probe';
export { resolveAddresses } from './resolve-addresses';
