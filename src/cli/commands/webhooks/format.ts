/** How webhooks and their deliveries print, and the few rules their verbs share. */
import type { Command } from 'commander';
import type { HttpClient } from '../../../client/http.js';
import { getWebhook } from '../../../client/webhooks.js';
import { EVENT_TYPES, typesNamedBy } from '../../../contract/events.js';
import { safeText } from '../../../contract/text-safe.js';
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookWithSecret,
} from '../../../contract/webhooks.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { usageError } from '../../errors.js';
import { type Column, renderRecord, resolveFormat, viewOf } from '../../output/render.js';
import { SECRET_ENV } from './listen.js';

const time = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 19) : '');

export const WEBHOOK_COLUMNS: Column<WebhookEndpoint>[] = [
  { header: 'id', path: 'id', value: (w) => w.id },
  { header: 'url', path: 'url', keep: 2, value: (w) => w.url },
  { header: 'types', path: 'types', value: (w) => w.types.join(',') },
  {
    header: 'enabled',
    path: 'enabled',
    value: (w) => (w.enabled ? 'yes' : `no${w.disabledReason ? ` (${w.disabledReason})` : ''}`),
  },
  { header: 'description', path: 'description', value: (w) => w.description },
];

/**
 * What add and rotate-secret print: the webhook and its secret, the one time the service shows
 * it, in every format (CSV's and a one-row table's columns too, not only JSON's).
 */
const WITH_SECRET_COLUMNS: Column<WebhookWithSecret>[] = [
  ...WEBHOOK_COLUMNS,
  { header: 'secret', path: 'secret', value: (w) => w.secret },
];

/** The last attempt in words: its status code, else why it failed. */
const lastOf = (d: WebhookDelivery) =>
  d.lastStatus !== null ? String(d.lastStatus) : (d.lastError ?? '');

export const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  { header: 'id', path: 'id', value: (d) => d.id },
  { header: 'created', path: 'createdAt', value: (d) => time(d.createdAt) },
  { header: 'type', path: 'type', value: (d) => d.type },
  { header: 'status', path: 'status', value: (d) => d.status },
  { header: 'attempts', path: 'attempts', value: (d) => d.attempts },
  { header: 'last', keep: 1, value: lastOf },
  { header: 'ms', path: 'lastDurationMs', value: (d) => d.lastDurationMs ?? '' },
  { header: 'next', path: 'nextAttemptAt', value: (d) => time(d.nextAttemptAt) },
];

export const webhookView = (globals: GlobalOptions, deps: Deps) =>
  viewOf(resolveFormat(globals.output, deps.io), WEBHOOK_COLUMNS);

export const deliveryView = (globals: GlobalOptions, deps: Deps) =>
  viewOf(resolveFormat(globals.output, deps.io), DELIVERY_COLUMNS);

export const printWebhook = (w: WebhookEndpoint, globals: GlobalOptions, deps: Deps) =>
  renderRecord(deps.io, webhookView(globals, deps), w);

export const printWithSecret = (w: WebhookWithSecret, globals: GlobalOptions, deps: Deps) =>
  renderRecord(deps.io, viewOf(resolveFormat(globals.output, deps.io), WITH_SECRET_COLUMNS), w);

export const printDelivery = (d: WebhookDelivery, globals: GlobalOptions, deps: Deps) =>
  renderRecord(deps.io, deliveryView(globals, deps), d);

/**
 * After test and retry: where to see how the delivery went, or, when the endpoint is disabled,
 * that it waits for the endpoint to be enabled (the service accepts it either way).
 */
export async function queuedNote(http: HttpClient, id: string, deps: Deps) {
  // The delivery is queued whatever this read gives: a failed one leaves the usual note.
  const hook = await getWebhook(http, id).catch(() => undefined);
  if (hook?.enabled !== false) {
    note(deps.io, `queued; see how it went: roster webhooks deliveries ${id}`);
    return;
  }
  // The service's words, on one line: note() keeps line breaks and its own colours.
  const why = hook.disabledReason ? ` (${safeText(String(hook.disabledReason))})` : '';
  note(
    deps.io,
    `queued, but webhook ${id} is disabled${why}: nothing is sent to it until it is enabled: roster webhooks update ${id} --enable`,
  );
}

/** After add and rotate-secret: the secret is in the output this once, and where to keep it. */
export function secretNote(deps: Deps, extra = '') {
  note(
    deps.io,
    `store the secret now: it is shown only this once (your receiver verifies deliveries with it; for roster webhooks listen, put it in ${SECRET_ENV})${extra}`,
  );
}

/** `--type user.* --type medium.created,token.*`: each word an event type or a family. */
export function parseTypes(given: string[] | undefined): string[] | undefined {
  if (!given) return undefined;
  const words = given
    .flatMap((g) => g.split(','))
    .map((w) => w.trim())
    .filter(Boolean);
  const bad = words.filter((w) => !typesNamedBy(w));
  if (bad.length > 0) {
    throw usageError(
      `--type: '${bad[0]}' is not an event type (one of ${EVENT_TYPES.join(', ')}, or a family such as user.*)`,
    );
  }
  if (words.length === 0) throw usageError('--type: name at least one event type (or user.*)');
  return [...new Set(words)];
}

export const typeOption = (cmd: Command, required: boolean) =>
  cmd[required ? 'requiredOption' : 'option'](
    '--type <types>',
    'event types to send, comma-separated or repeated (user.* for a family)',
    (value: string, previous: string[] = []) => [...previous, value],
  );
