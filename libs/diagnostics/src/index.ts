export {
  CHECK_STATUSES,
  DOCTOR_STATUSES,
  overallStatus,
  type CheckResult,
  type CheckStatus,
  type DoctorReport,
  type DoctorStatus,
} from './check';
export { CHECK_NAMES, queueCheckName } from './check-names';
export { THRESHOLDS } from './findings';
export { runDoctor, type DoctorConfig, type DoctorDeps } from './doctor';
