import { runDoctor, type DoctorDeps } from '@cds/diagnostics';
import { route, type Route } from '../shared/mount';
import { doctorReport } from './doctor.schema';
import { operatorCommonResponses, operatorOperation } from './operator-route-parts';

export function doctorRoutes(deps: DoctorDeps): Route[] {
  return [
    route({
      ...operatorOperation, method: 'get', path: '/operator/v1/doctor', operationId: 'doctor',
      summary: 'Run the diagnostic checks of `cdctl doctor`',
      description: 'Always 200 once authenticated: a failing dependency is a failed check in the report, for monitoring to read.',
      responses: { ...operatorCommonResponses, 200: { description: 'The report, checks in a fixed order', schema: doctorReport } },
    }, async (_req, res) => { res.status(200).json(await runDoctor(deps)); }),
  ];
}
