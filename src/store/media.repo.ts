/** Every SQL statement on media. Rows in and out; rules (and blobs) live in the service. */
import type { Db } from './db.js';

export interface MediumRow {
  rowid: number;
  id: string;
  tenant_id: number;
  branch_id: number;
  owner_id: string;
  file_name: string;
  blob_key: string;
  type: string;
  format: string;
  mime_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  duration: number | null;
  preview_key: string | null;
  preview_format: string | null;
  preview_mime_type: string | null;
  preview_bytes: number | null;
  preview_width: number | null;
  preview_height: number | null;
  created_at: string;
}

export type NewMediumRow = Omit<MediumRow, 'rowid'>;

/** A row with the names its public path is made of. */
export interface PlacedMediumRow extends MediumRow {
  tenant_host: string;
  branch_name: string;
}

const COLUMNS = [
  'id',
  'tenant_id',
  'branch_id',
  'owner_id',
  'file_name',
  'blob_key',
  'type',
  'format',
  'mime_type',
  'bytes',
  'width',
  'height',
  'duration',
  'preview_key',
  'preview_format',
  'preview_mime_type',
  'preview_bytes',
  'preview_width',
  'preview_height',
  'created_at',
] as const satisfies readonly (keyof NewMediumRow)[];

export function mediaRepo(db: Db) {
  const insert = db.prepare<NewMediumRow>(
    `INSERT INTO media (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const byId = db.prepare<[number, string], MediumRow>(
    'SELECT * FROM media WHERE branch_id = ? AND id = ?',
  );
  const placed = db.prepare<[string], PlacedMediumRow>(
    `SELECT media.*, tenants.host AS tenant_host, branches.name AS branch_name FROM media
     JOIN branches ON branches.id = media.branch_id JOIN tenants ON tenants.id = media.tenant_id
     WHERE media.id = ?`,
  );
  const count = db.prepare<[number], { total: number }>(
    'SELECT count(*) AS total FROM media WHERE branch_id = ?',
  );
  const page = db.prepare<[number, number, number], MediumRow>(
    'SELECT * FROM media WHERE branch_id = ? ORDER BY id DESC LIMIT ? OFFSET ?',
  );
  const remove = db.prepare<[number]>('DELETE FROM media WHERE rowid = ?');
  const used = db.prepare<[number], { bytes: number }>(
    'SELECT coalesce(sum(bytes + coalesce(preview_bytes, 0)), 0) AS bytes FROM media WHERE tenant_id = ?',
  );
  const keys = db.prepare<[], Pick<MediumRow, 'rowid' | 'id' | 'blob_key' | 'preview_key'>>(
    'SELECT rowid, id, blob_key, preview_key FROM media',
  );
  const dropPreview = db.prepare<[number]>(
    `UPDATE media SET preview_key = NULL, preview_format = NULL, preview_mime_type = NULL,
     preview_bytes = NULL, preview_width = NULL, preview_height = NULL WHERE rowid = ?`,
  );

  return {
    insert(row: NewMediumRow): MediumRow {
      const rowid = Number(insert.run(row).lastInsertRowid);
      return { ...row, rowid };
    },
    /** A medium of the branch (other branches' media do not exist for it). */
    find: (branchId: number, id: string): MediumRow | undefined => byId.get(branchId, id),
    /** A medium by id alone, with its tenant and branch names: the CDN route checks them. */
    placed: (id: string): PlacedMediumRow | undefined => placed.get(id),
    list(branchId: number, limit: number, offset: number): { total: number; rows: MediumRow[] } {
      return { total: count.get(branchId)!.total, rows: page.all(branchId, limit, offset) };
    },
    remove: (rowid: number): boolean => remove.run(rowid).changes > 0,
    /** Bytes a tenant's media (files and previews) take, for its quota. */
    bytesUsed: (tenantId: number): number => used.get(tenantId)?.bytes ?? 0,
    /** Every row's blob keys, for the start-up sweep. */
    allKeys: () => keys.all(),
    /** Forgets a preview whose file is gone (start-up sweep). */
    dropPreview: (rowid: number) => void dropPreview.run(rowid),
  };
}

export type MediaRepo = ReturnType<typeof mediaRepo>;
