/**
 * PATCH (RFC 7644 §3.5.2): the operations normalised for what identity providers really send,
 * then applied by scim-patch to the user's current SCIM resource. What the result changed is
 * the update (resource.ts `scimChanges`).
 *
 * Normalised here, because no library does it: Entra ID capitalises ops (`Replace`) and sends
 * booleans as strings (`"active": "False"`); `Operations` is read whatever its case.
 */
import { type ScimPatchOperation, scimPatch } from 'scim-patch';
import { activeValue, PATCH_OP, prop } from './attributes.js';
import { ScimError, type ScimType } from './errors.js';

type Obj = Record<string, unknown>;

const syntax = (message: string) => new ScimError('validation', 'invalidSyntax', message);

/** `active` in a path or in a pathless value object, as a boolean where it is a string. */
function fixActive(path: string | undefined, value: unknown): unknown {
  if (path !== undefined) {
    return path.toLowerCase() === 'active' ? (activeValue(value) ?? value) : value;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k.toLowerCase() === 'active' ? (activeValue(v) ?? v) : v;
  }
  return out;
}

export function patchOperations(body: unknown): ScimPatchOperation[] {
  const schemas = prop(body, 'schemas');
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_OP)) {
    throw syntax(`a PATCH body names the schema ${PATCH_OP}`);
  }
  const operations = prop(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw syntax('a PATCH body has a non-empty Operations array');
  }
  return operations.flatMap((o, i) => {
    const op = String(prop(o, 'op') ?? '').toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw syntax(`Operations[${i}].op must be add, replace or remove`);
    }
    const path = prop(o, 'path');
    if (path !== undefined && typeof path !== 'string') {
      throw new ScimError('validation', 'invalidPath', `Operations[${i}].path must be a string`);
    }
    if (op === 'remove' && !path) {
      throw new ScimError('validation', 'noTarget', `Operations[${i}]: remove needs a path`);
    }
    const value = fixActive(path, prop(o, 'value'));
    if (path !== undefined) return [{ op, path, value } as ScimPatchOperation];
    return pathless(op, value);
  });
}

/**
 * A pathless op's value keys that are filtered paths (Entra ID sends `emails[type eq "work"].value`
 * so) become ops of their own: the library takes dotted and URN keys, not filters.
 */
function pathless(op: string, value: unknown): ScimPatchOperation[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [{ op, value } as ScimPatchOperation];
  }
  const entries = Object.entries(value);
  const filtered = entries.filter(([k]) => k.includes('['));
  const rest = entries.filter(([k]) => !k.includes('['));
  return [
    ...(rest.length > 0 || filtered.length === 0
      ? [{ op, value: Object.fromEntries(rest) } as ScimPatchOperation]
      : []),
    ...filtered.map(([path, v]) => ({ op, path, value: v }) as ScimPatchOperation),
  ];
}

/** The resource after the operations; 400 with the library's scimType when one cannot apply. */
export function applyPatch(resource: Obj, operations: ScimPatchOperation[]): Obj {
  try {
    return scimPatch(
      structuredClone(resource) as Obj & Parameters<typeof scimPatch>[0],
      operations,
      { mutateDocument: true, treatMissingAsAdd: true },
    );
  } catch (err) {
    const code = (err as { scimCode?: string }).scimCode as ScimType | undefined;
    throw new ScimError('validation', code ?? 'invalidValue', (err as Error).message);
  }
}
