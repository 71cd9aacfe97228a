/**
 * The bodies of `POST` and `PATCH /api/webhooks`: every field checked, each refusal naming it
 * (400 with `details`). The URL's own rules (scheme, credentials, length, refused addresses)
 * are the egress guard's (egress.ts), given here as `checkUrl`.
 */
import type { FieldIssue } from '../../contract/errors.js';
import { EVENT_TYPES, typesNamedBy } from '../../contract/events.js';
import { CONTROL_MESSAGE, hasControlChars } from '../../contract/limits.js';
import { MAX_WEBHOOK_DESCRIPTION } from '../../contract/webhooks.js';
import { validationError } from '../errors.js';

export type UrlCheck = (url: string) => FieldIssue[];

export interface WebhookInput {
  url?: string;
  types?: string[];
  description?: string;
  enabled?: boolean;
}

const FIELDS = {
  create: ['url', 'types', 'description'],
  update: ['url', 'types', 'description', 'enabled'],
} as const;

/** Checks a body; `create` requires url and types. Throws a 400 naming every bad field. */
export function parseWebhookInput(
  body: unknown,
  kind: 'create' | 'update',
  checkUrl: UrlCheck,
): WebhookInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([{ field: '(body)', message: 'must be a JSON object' }]);
  }
  const given = body as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  const known: readonly string[] = FIELDS[kind];
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) {
      issues.push({ field: key, message: `is not a field of a webhook (${known.join(', ')})` });
    }
  }
  const input: WebhookInput = {};
  if (given.url !== undefined) {
    if (typeof given.url !== 'string') issues.push({ field: 'url', message: 'must be a string' });
    else if (hasControlChars(given.url)) issues.push({ field: 'url', message: CONTROL_MESSAGE });
    else if (given.url !== given.url.trim()) {
      // The URL parser drops them: the URL shown would not be the one delivered to.
      issues.push({ field: 'url', message: 'must not begin or end with a space' });
    } else {
      issues.push(...checkUrl(given.url));
      input.url = given.url;
    }
  } else if (kind === 'create') issues.push({ field: 'url', message: 'is required' });
  if (given.types !== undefined) {
    const types = given.types;
    if (!Array.isArray(types) || types.some((t) => typeof t !== 'string')) {
      issues.push({ field: 'types', message: 'must be a list of event types' });
    } else if (types.length === 0) {
      issues.push({
        field: 'types',
        message: 'must name at least one event type (or a family such as user.*)',
      });
    } else {
      for (const t of types as string[]) {
        if (!typesNamedBy(t)) {
          issues.push({
            field: 'types',
            message: `'${t}' is not an event type (one of ${EVENT_TYPES.join(', ')}, or a family such as user.*)`,
          });
        }
      }
      input.types = [...new Set(types as string[])];
    }
  } else if (kind === 'create') issues.push({ field: 'types', message: 'is required' });
  if (given.description !== undefined) {
    const d = given.description;
    if (typeof d !== 'string') issues.push({ field: 'description', message: 'must be a string' });
    else if (hasControlChars(d)) issues.push({ field: 'description', message: CONTROL_MESSAGE });
    else if (d.length > MAX_WEBHOOK_DESCRIPTION) {
      issues.push({
        field: 'description',
        message: `is longer than ${MAX_WEBHOOK_DESCRIPTION} characters`,
      });
    } else input.description = d;
  }
  if (given.enabled !== undefined) {
    if (typeof given.enabled !== 'boolean') {
      issues.push({ field: 'enabled', message: 'must be true or false' });
    } else input.enabled = given.enabled;
  }
  if (issues.length > 0) throw validationError(issues);
  return input;
}
