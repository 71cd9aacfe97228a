/**
 * The guard of `--sync`: a truncated HR export must not deactivate half the company. Beyond
 * `--max-deactivate` (a count, or a percentage of the branch's activated and pending users;
 * default 10%) the import is refused before anything is sent.
 */
import { ImportError } from './errors.js';
import type { Plan } from './plan.js';

export type DeactivateLimit = { count: number } | { percent: number };

export const DEFAULT_MAX_DEACTIVATE: DeactivateLimit = { percent: 10 };

/** The largest number of users the limit allows out of `active`. */
export function allowed(limit: DeactivateLimit, active: number): number {
  return 'count' in limit ? limit.count : Math.floor((active * limit.percent) / 100);
}

const describe = (limit: DeactivateLimit) =>
  'count' in limit ? `${limit.count}` : `${limit.percent}%`;

/** A refusal to show (and exit non-zero with), or undefined when the plan is within the limit. */
export function syncRefusal(plan: Plan, limit: DeactivateLimit): ImportError | undefined {
  // Leavers count too: a status column read the wrong way must not deactivate everyone.
  const leavers = plan.counts.deactivate;
  const n = plan.deactivate.length + leavers;
  const max = allowed(limit, plan.active);
  if (n <= max) return undefined;
  const share =
    plan.active > 0 ? ` (${((100 * n) / plan.active).toFixed(1)}% of ${plan.active})` : '';
  const suggestion =
    'count' in limit ? `${n}` : `${Math.ceil((100 * n) / Math.max(plan.active, 1))}%`;
  return new ImportError(
    `--sync would deactivate ${n} users${share}${leavers > 0 ? ` (${leavers} of them marked as leavers by ${plan.statusColumns.join(', ')})` : ''}, more than --max-deactivate ${describe(limit)} allows (${max}); nothing was changed. ` +
      `Check that ${plan.file} is complete${leavers > 0 ? ' and its status values are read right (--dry-run lists the leavers)' : ''}, then raise the limit if this is right (--max-deactivate ${suggestion})`,
  );
}
