/**
 * What a run record and a saved plan may hold, checked when they are read back: they travel
 * (CI artefacts, a plan sent for review) and are edited by hand, so a field of the wrong kind is
 * refused naming the file and the field, never met later as a crash ("Cannot use 'in' operator")
 * or an option the run would apply without a word. Keys that could reach a prototype
 * (`__proto__`, `constructor`, `prototype`) are refused first, at any depth.
 */
import { readFileSync } from 'node:fs';
import { type ZodType, z } from 'zod';
import { RUN_ID } from '../contract/events.js';
import { forbiddenKeyIn } from '../contract/safe-keys.js';
import { importUsageError } from './errors.js';
import { PRESET_NAMES } from './presets.js';
import { MATCH_FIELDS } from './types.js';

const text = z.string();
const count = z.number().int().nonnegative();

const shaping = z.strictObject({
  preset: z.enum(PRESET_NAMES).optional(),
  match: z.enum(MATCH_FIELDS).optional(),
  encoding: text.optional(),
  delimiter: text.optional(),
  skipLines: count.optional(),
  sheet: text.optional(),
  headerRow: count.optional(),
  maps: z.array(text).optional(),
  ignoreUnknown: z.boolean().optional(),
  emptyClears: z.boolean().optional(),
  statusColumn: text.optional(),
  activeValues: z.array(text).optional(),
  sendMail: z.boolean(),
  sync: z.boolean().optional(),
  maxDeactivate: z
    .union([z.strictObject({ count }), z.strictObject({ percent: z.number().min(0).max(100) })])
    .optional(),
  photos: text.optional(),
  photoName: z.array(text).optional(),
});

/** What a record and a plan share: where the run comes from and goes to, and its options. */
const origin = {
  input: z.strictObject({
    path: text,
    size: count,
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex'),
  }),
  target: z.strictObject({
    baseUrl: text,
    tenant: text,
    branch: z.strictObject({ id: text, name: text }).optional(),
  }),
  connection: z.strictObject({
    profile: text.optional(),
    baseUrl: text.optional(),
    region: text.optional(),
  }),
  options: shaping,
  defaults: z.strictObject({ role: text.optional(), locale: text.optional() }),
};

export const runRecordSchema = z.strictObject({
  kind: z.literal('roster-import-run'),
  version: z.literal(1),
  ...origin,
  plan: text.optional(),
  /** The Roster-Run-Id of the run's requests (contract/events.ts): kept by a resume. */
  runId: z.string().regex(RUN_ID).optional(),
});

const ACTIONS = ['create', 'update', 'unchanged', 'deactivate', 'leaver', 'error', 'skip'] as const;
const change = z.strictObject({ from: text.nullable(), to: text.nullable() });

export const savedPlanSchema = z.strictObject({
  kind: z.literal('roster-import-plan'),
  version: z.literal(1),
  ...origin,
  rows: z.array(
    z.strictObject({
      row: z.number().int().positive().optional(),
      line: z.number().int().positive().optional(),
      key: text.optional(),
      action: z.enum(ACTIONS),
      id: text.optional(),
      changes: z.record(text, change).optional(),
      error: text.optional(),
    }),
  ),
});

/**
 * Reads and checks one of these files; `what` names it in every refusal
 * (`--resume run.csv: run.csv.run.json`), the field too when one is wrong (exit 2). A file of
 * another kind altogether is `notOne`.
 */
export function readChecked<T>(path: string, schema: ZodType<T>, what: string, notOne: string): T {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw importUsageError(`${what}: not readable (${(err as Error).message})`);
  }
  const bad = forbiddenKeyIn(data);
  if (bad !== undefined) {
    throw importUsageError(`${what}: the key '${bad}' is not allowed (it could reach a prototype)`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.path.length === 0 || issue.path[0] === 'kind' || issue.path[0] === 'version') {
      throw importUsageError(`${what}: ${notOne}`);
    }
    const field = issue.path.join('.') || '(the whole file)';
    throw importUsageError(
      `${what}: ${field}: ${issue.message}; the file is not as Roster wrote it`,
    );
  }
  return parsed.data;
}
