export {
  DOCTOR_STATUSES,
  FINDING_STATUSES,
  overallStatus,
  type CheckResult,
  type DoctorReport,
  type DoctorStatus,
  type FindingStatus,
} from './check';
export { CHECK_NAMES, queueCheckName } from './check-names';
export { THRESHOLDS } from './findings';
export { runDoctor, type DoctorConfig, type DoctorDeps } from './doctor';
