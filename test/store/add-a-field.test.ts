/**
 * #23 §1: adding a profile field is one row in the user-field table and one `addColumn`
 * migration (declared once, store/migrations/list.ts). The built service and CLI are loaded
 * with exactly that added (add-a-field/hooks.mjs edits the modules as they load) in a child
 * process, and the field must flow through the API, the store's columns, the OpenAPI document,
 * the import (by a header alias), the export, `--set` and `--fields`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./add-a-field/child.mjs', import.meta.url));

describe('a profile field added as one row and one migration', () => {
  it('flows through the API (v3 and flat), the store, OpenAPI, import, export, --set and --fields', () => {
    const seen = JSON.parse(execFileSync(process.execPath, [CHILD], { encoding: 'utf8' }));
    expect(seen.error).toBeUndefined();
    expect(seen.apiCreate).toEqual({ status: 201, costCenter: 'CC-100' });
    // A column of its own, not a custom field.
    expect(seen.stored).toEqual({ cost_center: 'CC-100', custom: '{}' });
    expect(seen.openapiHasField).toBe(true);
    expect(seen.importRun.code).toBe(0);
    expect(JSON.parse(seen.importRun.stdout)).toMatchObject({ created: 0, updated: 1 });
    expect(seen.afterImport).toBe('CC-200');
    expect(seen.flat).toBe('CC-200');
    expect(seen.exportRun.code).toBe(0);
    expect(seen.exportHeader.split(',')).toContain('costCenter');
    expect(JSON.parse(seen.reimport.stdout).summary).toMatchObject({ unchanged: 1, updated: 0 });
    expect(seen.setRun.code).toBe(0);
    expect(JSON.parse(seen.setRun.stdout).profile.costCenter).toBe('CC-300');
    expect(seen.list.stdout).toBe('externalId,profile.costCenter\nE1,CC-300\n');
  });
});
