import Joi from 'joi';
import { DOCTOR_STATUSES, FINDING_STATUSES } from '@cds/diagnostics';

export const doctorReport = Joi.object({
  status: Joi.string().valid(...Object.values(DOCTOR_STATUSES)).required()
    .description('`failing` when any check fails, `degraded` when any warns, else `ok`'),
  checks: Joi.array().items(
    Joi.object({
      name: Joi.string().required(),
      status: Joi.string().valid(...Object.values(FINDING_STATUSES)).required(),
      message: Joi.string().required(),
      duration_ms: Joi.number().integer().min(0).required(),
    }).label('DoctorCheck'),
  ).required(),
}).label('DoctorReport');
