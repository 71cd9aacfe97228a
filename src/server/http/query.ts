import type { ParsedUrlQuery } from 'node:querystring';
import type { z } from 'zod';
import { fieldIssues } from '../../contract/schemas.js';
import { validationError } from '../errors.js';

/** Validates a query string against a schema; a parameter given twice is an error, not a list. */
export function parseQuery<S extends z.ZodType>(schema: S, query: ParsedUrlQuery): z.output<S> {
  const repeated = Object.entries(query).filter(([, v]) => Array.isArray(v));
  if (repeated.length > 0) {
    throw validationError(
      repeated.map(([field]) => ({ field, message: 'is given more than once' })),
      'query',
    );
  }
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw validationError(fieldIssues(parsed.error), 'query');
  return parsed.data;
}
