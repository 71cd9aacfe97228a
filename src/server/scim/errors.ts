/**
 * SCIM's error answers (RFC 7644 §3.12): the same failures the REST API answers, in the Error
 * schema (`status` a string, `scimType` where the RFC names one, `detail`).
 */
import { ERRORS, type ErrorKind, type FieldIssue } from '../../contract/errors.js';
import { AppError } from '../errors.js';
import { ERROR } from './attributes.js';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers';

/** A failure SCIM names more precisely than the REST API's kind does. */
export class ScimError extends AppError {
  constructor(
    kind: ErrorKind,
    readonly scimType: ScimType | undefined,
    message: string,
    details?: FieldIssue[],
  ) {
    super(kind, message, details);
    this.name = 'ScimError';
  }
}

const DEFAULT_TYPES: Partial<Record<ErrorKind, ScimType>> = {
  validation: 'invalidValue',
  conflict: 'uniqueness',
};

export interface ScimErrorBody {
  schemas: [typeof ERROR];
  status: string;
  scimType?: ScimType;
  detail: string;
}

/** The Error resource of any failure the error middleware answers. */
export function scimErrorBody(err: AppError): ScimErrorBody {
  const scimType = err instanceof ScimError ? err.scimType : DEFAULT_TYPES[err.kind];
  // A state conflict (activating someone who never signed up) is no uniqueness violation.
  const uniqueness = err.kind !== 'conflict' || err.details?.some((d) => d.field !== 'status');
  return {
    schemas: [ERROR],
    status: String(ERRORS[err.kind].statusCode),
    ...(scimType && uniqueness ? { scimType } : {}),
    detail: err.message,
  };
}
