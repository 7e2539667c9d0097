// Pieces every operator route spec repeats.
import { errorEnvelope } from '../shared/common.schema';

export const APPLICATIONS_PATH = '/operator/v1/applications';
export const slugParam = { slug: { description: 'Application slug' } };
export const errorResponse = (description: string) => ({ description, schema: errorEnvelope });
/** Answers of every operator route; 413 and 422 of routes that read a body are added by the document builder. */
export const operatorCommonResponses = {
  401: errorResponse('Missing or wrong operator token'),
  403: errorResponse('Client address not permitted'),
  404: errorResponse('Not found, or the operator API is off'),
  429: errorResponse('Too many failed tokens'),
};
export const operatorOperation = { tags: ['Operator'], security: 'OperatorToken' as const };
