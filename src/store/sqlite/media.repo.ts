/** Every SQL statement on media. Rows in and out; rules (and blobs) live in the service. */
import { mediumEvent } from '../common/changes.js';
import {
  type Audit,
  MEDIUM_COLUMNS as COLUMNS,
  type MediumKeys,
  type MediumRow,
  type NewMediumRow,
  type PlacedMediumRow,
} from '../types.js';
import type { Db } from './db.js';
import type { SqliteEvents } from './events.repo.js';

export function mediaRepo(db: Db, events: SqliteEvents) {
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
  const remove = db.prepare<[number], MediumRow>('DELETE FROM media WHERE rowid = ? RETURNING *');
  const used = db.prepare<[number], { bytes: number }>(
    'SELECT coalesce(sum(bytes + coalesce(preview_bytes, 0)), 0) AS bytes FROM media WHERE tenant_id = ?',
  );
  const keys = db.prepare<[], MediumKeys>('SELECT rowid, id, blob_key, preview_key FROM media');
  const dropPreview = db.prepare<[number]>(
    `UPDATE media SET preview_key = NULL, preview_format = NULL, preview_mime_type = NULL,
     preview_bytes = NULL, preview_width = NULL, preview_height = NULL WHERE rowid = ?`,
  );

  const usedBy = (tenantId: number): number => used.get(tenantId)?.bytes ?? 0;
  const place = (row: MediumRow) => ({ tenantId: row.tenant_id, branchId: row.branch_id });

  return {
    insert(
      row: NewMediumRow,
      audit: Audit,
      quotaBytes?: number,
    ): { inserted: MediumRow } | { used: number } {
      return db
        .transaction(() => {
          if (quotaBytes !== undefined) {
            const used = usedBy(row.tenant_id);
            if (used + row.bytes + (row.preview_bytes ?? 0) > quotaBytes) return { used };
          }
          const rowid = Number(insert.run(row).lastInsertRowid);
          const inserted = { ...row, rowid };
          events.record(mediumEvent('medium.created', inserted), audit, place(inserted));
          return { inserted };
        })
        .immediate();
    },
    /** A medium of the branch (other branches' media do not exist for it). */
    find: (branchId: number, id: string): MediumRow | undefined => byId.get(branchId, id),
    /** A medium by id alone, with its tenant and branch names: the CDN route checks them. */
    placed: (id: string): PlacedMediumRow | undefined => placed.get(id),
    list(branchId: number, limit: number, offset: number): { total: number; rows: MediumRow[] } {
      return { total: count.get(branchId)!.total, rows: page.all(branchId, limit, offset) };
    },
    remove(rowid: number, audit: Audit): boolean {
      return db.transaction(() => {
        const removed = remove.get(rowid);
        if (removed) events.record(mediumEvent('medium.deleted', removed), audit, place(removed));
        return removed !== undefined;
      })();
    },
    /** Bytes a tenant's media (files and previews) take, for its quota. */
    bytesUsed: (tenantId: number): number => usedBy(tenantId),
    /** Every row's blob keys, for the start-up sweep. */
    allKeys: (): MediumKeys[] => keys.all(),
    /** Forgets a preview whose file is gone (start-up sweep). */
    dropPreview: (rowid: number) => void dropPreview.run(rowid),
  };
}
