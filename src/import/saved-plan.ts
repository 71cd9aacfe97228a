/**
 * A saved plan (`--dry-run --save-plan FILE`, then `--plan FILE`), like `terraform plan -out`:
 * the rows as planned, each with the values it was planned against (a change's `from`), bound
 * to the target and the input's fingerprint, and the options the plan was made with. Applying
 * it plans again and sends only rows that come out exactly as saved: a row whose user changed
 * since (any field the plan read) is named, and the whole plan refused unless `--partial`.
 *
 * It holds no secrets: `secret` and `recoveryCode` are `***` here and read from the file again.
 */
import { isDeepStrictEqual } from 'node:util';
import { importUsageError } from './errors.js';
import { readChecked, savedPlanSchema } from './file-schemas.js';
import { changesText, type PlannedRow } from './planned.js';
import { type RunRecord, writeJson } from './run-record.js';

export interface SavedPlan extends Omit<RunRecord, 'kind' | 'version'> {
  kind: 'roster-import-plan';
  version: 1;
  /** Every row of the file in order (`row` numbers it), then the `--sync` deactivations. */
  rows: (PlannedRow & { row?: number })[];
}

export function writePlan(path: string, plan: SavedPlan) {
  writeJson(path, plan);
}

export function readPlan(path: string): SavedPlan {
  return readChecked(
    path,
    savedPlanSchema,
    `--plan ${path}`,
    'not a roster import plan (make one with --dry-run --save-plan)',
  );
}

/** Where a row of the plan went, for the check against the plan made now. */
const where = (r: PlannedRow & { row?: number }) =>
  r.line !== undefined ? `line ${r.line}${r.key ? ` (${r.key})` : ''}` : `user ${r.id} (--sync)`;

const describe = (r?: PlannedRow) =>
  !r ? 'nothing' : `${r.action}${r.changes ? ` ${changesText(r.changes)}` : ''}`;

/**
 * The rows whose plan now differs from the saved one (the user changed since), each with what
 * was planned and what would happen now. Rows the `--resume` report marks done are not compared.
 */
export class PlanCheck {
  private readonly saved = new Map<string, PlannedRow & { row?: number }>();
  readonly changed: string[] = [];
  /** Row numbers (file rows) that are not to be sent. */
  readonly held = new Set<number>();

  constructor(plan: SavedPlan) {
    for (const r of plan.rows) this.saved.set(r.row ? `row ${r.row}` : `id ${r.id}`, r);
  }

  /** Compares one row of the plan made now; false when it is not the saved one. */
  check(now: PlannedRow & { row?: number }): boolean {
    const id = now.row ? `row ${now.row}` : `id ${now.id}`;
    const saved = this.saved.get(id);
    this.saved.delete(id);
    if (now.action === 'skip') return true;
    if (saved && isDeepStrictEqual(strip(saved), strip(now))) return true;
    this.changed.push(`${where(saved ?? now)}: planned ${describe(saved)}, now ${describe(now)}`);
    if (now.row) this.held.add(now.row);
    return false;
  }

  /**
   * Planned deactivations that the plan made now no longer has. Rows of the file that the input
   * does not have mean the plan is not this input's (it was edited): refused whole, --partial or
   * not, as a plan for another input is.
   */
  finish() {
    const strange: string[] = [];
    for (const r of this.saved.values()) {
      if (r.row === undefined)
        this.changed.push(`${where(r)}: planned ${describe(r)}, now nothing`);
      else strange.push(`row ${r.row}${r.line !== undefined ? ` (${where(r)})` : ''}`);
    }
    if (strange.length > 0) {
      throw importUsageError(
        `the plan holds ${strange.length === 1 ? 'a row' : `${strange.length} rows`} its input does not have (${strange.slice(0, 5).join(', ')}${strange.length > 5 ? ', …' : ''}), so it is not the plan of this input and nothing was applied; make a new one with --dry-run --save-plan`,
      );
    }
  }
}

const strip = ({ row: _row, ...r }: PlannedRow & { row?: number }) =>
  JSON.parse(JSON.stringify(r)) as PlannedRow;
