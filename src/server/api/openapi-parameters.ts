/**
 * Query parameters from the zod schemas the routes parse queries with: every key the server
 * accepts is listed, typed as a client sends it (the wire carries strings; zod turns them).
 */
import type { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../contract/schemas.js';
import { DEFAULT_SORT, LISTABLE_STATUSES, SORT_KEYS } from '../../contract/user.js';
import { type Json, jsonSchema } from './openapi-components.js';

const keys = `(${SORT_KEYS.join('|')})`;
const statuses = `(${LISTABLE_STATUSES.join('|')})`;

/** What the zod input schema (a string with a transform) cannot say about a parameter. */
const KNOWN: Record<string, { description: string; schema: Json }> = {
  limit: {
    description: `Page size; above ${MAX_LIMIT} the server applies ${MAX_LIMIT} (and says so in \`limit\`)`,
    schema: { type: 'integer', minimum: 1, maximum: 999_999_999, default: DEFAULT_LIMIT },
  },
  offset: {
    description: 'How many results to skip',
    schema: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
  },
  after: {
    description:
      'A page’s `next` cursor: the page after it, with the same sort, status and query (not with `offset`)',
    schema: { type: 'string', maxLength: 4096 },
  },
  query: {
    description:
      'Free text, prefix-matched against names, email, userName, position, department, location and phone',
    schema: { type: 'string', maxLength: 200 },
  },
  sort: {
    description: `Two keys with directions: \`<key>_<ASC|DESC>_<key>_<ASC|DESC>\`; keys: ${SORT_KEYS.join(', ')}`,
    schema: {
      type: 'string',
      pattern: `^${keys}_(ASC|DESC)_${keys}_(ASC|DESC)$`,
      default: DEFAULT_SORT,
    },
  },
  status: {
    description: `One or more of ${LISTABLE_STATUSES.join(', ')}, comma-separated`,
    schema: { type: 'string', pattern: `^${statuses}(,${statuses})*$`, default: 'activated' },
  },
};

export function queryParameters(schema: z.ZodObject): Json[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const known = KNOWN[name];
    return {
      name,
      in: 'query',
      required: false,
      ...(known ?? { schema: jsonSchema(field as z.ZodType, 'input') }),
    };
  });
}
