/** How `webhooks listen` prints a delivery: one line a person reads (JSON for pipes is the body). */
import type { RosterEvent } from '../../../contract/events.js';
import { count } from '../../output/count.js';
import { safeText } from '../../output/text-safe.js';
import { actorName, targetName } from '../events/format.js';
import type { Delivery } from './receiver.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Whether a delivery's `data` has the fields an event's line is made of (the sender is untrusted). */
function asEvent(data: unknown): RosterEvent | undefined {
  if (!isObject(data) || !isObject(data.target) || !isObject(data.actor)) return undefined;
  if (typeof data.target.id !== 'string' || typeof data.occurredAt !== 'string') return undefined;
  return data as unknown as RosterEvent;
}

const clock = (iso: unknown) =>
  typeof iso === 'string' && /T\d\d:\d\d:\d\d/.test(iso) ? iso.slice(11, 19) : '--:--:--';

/**
 * `21:03:11 user.updated ann@example.com (nightly-import/api) 1 change`, within `width`
 * columns; a delivery that is not an event (`webhook.test`) shows its type and webhook-id.
 */
export function deliveryLine(d: Delivery, width = 80): string {
  const body = isObject(d.body) ? d.body : {};
  const type = typeof body.type === 'string' ? body.type : '(no type)';
  const e = asEvent(body.data);
  const text = e
    ? `${clock(e.occurredAt)} ${type} ${targetName(e)} (${actorName(e)})${
        e.changes && isObject(e.changes) ? ` ${count(Object.keys(e.changes).length, 'change')}` : ''
      }`
    : `${clock(body.timestamp)} ${type} ${d.id}`;
  const line = safeText(text);
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
