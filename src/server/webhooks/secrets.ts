/**
 * Which secrets sign an endpoint's deliveries: its secret, and each one a rotation replaced in
 * the last 24 h (ROTATION_OVERLAP_MS), every one until 24 h after it was replaced. Kept newest
 * first in `retired_secrets` (JSON). A second rotation within the day keeps the first's old
 * secret signing to its own end: receivers still on it (the first rotation's output lost, say)
 * go on verifying. `previous_secret` holds the newest of them too, for a replica of a release
 * before the list, which signs with that one alone (an endpoint rotated only there has no list).
 */
import { z } from 'zod';
import { ROTATION_OVERLAP_MS } from '../../contract/webhooks.js';
import type { WebhookColumns, WebhookRow } from '../../store/webhook-types.js';

/** At most this many secrets sign one delivery (the endpoint's own included). */
export const MAX_SIGNING_SECRETS = 10;

interface Retired {
  secret: string;
  /** Until when (ms) it signs. */
  until: number;
}

type SecretColumns = Pick<
  WebhookRow,
  'secret' | 'previous_secret' | 'previous_expires_at' | 'retired_secrets'
>;

const RETIRED = z.array(z.object({ secret: z.string().min(1), until: z.number() }));

/**
 * The list as stored, or none where it is not one (a row written by hand): a delivery is then
 * signed by the endpoint's own secret, never stopped by the list.
 */
function listOf(text: string): Retired[] {
  try {
    const parsed = RETIRED.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * The replaced secrets still signing at `now`, newest first: the list, and previous_secret where
 * the list lacks it (a rotation by a replica of the release before, which wrote that alone).
 */
function retiredAt(row: SecretColumns, now: number): Retired[] {
  const list = row.retired_secrets === null ? [] : listOf(row.retired_secrets);
  if (
    row.previous_secret !== null &&
    row.previous_expires_at !== null &&
    !list.some((r) => r.secret === row.previous_secret)
  ) {
    list.push({ secret: row.previous_secret, until: Number(row.previous_expires_at) });
  }
  return list.filter((r) => r.until > now).sort((a, b) => b.until - a.until);
}

/** The secrets that sign a delivery sent at `now`: the endpoint's first. */
export const signingSecrets = (row: SecretColumns, now: number): string[] =>
  [row.secret, ...retiredAt(row, now).map((r) => r.secret)].slice(0, MAX_SIGNING_SECRETS);

/** A rotation to `secret` at `now`: the columns it writes. */
export function rotated(
  row: SecretColumns,
  secret: string,
  now: number,
): Pick<WebhookColumns, 'secret' | 'previous_secret' | 'previous_expires_at' | 'retired_secrets'> {
  const retired = [
    { secret: row.secret, until: now + ROTATION_OVERLAP_MS },
    ...retiredAt(row, now),
  ].slice(0, MAX_SIGNING_SECRETS - 1);
  return {
    secret,
    retired_secrets: JSON.stringify(retired),
    previous_secret: retired[0]!.secret,
    previous_expires_at: retired[0]!.until,
  };
}
