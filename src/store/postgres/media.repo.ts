/** Every SQL statement on media, for PostgreSQL; the same answers as ../sqlite/media.repo.ts. */
import { mediumEvent } from '../common/changes.js';
import type { Notifier } from '../common/notifier.js';
import type { MediaRepo } from '../store.js';
import { MEDIUM_COLUMNS, type MediumKeys, type MediumRow, type PlacedMediumRow } from '../types.js';
import { type Pool, query, transaction } from './db.js';
import { recordEventAtCommit } from './events.repo.js';

const SELECT = `rowid, ${MEDIUM_COLUMNS.join(', ')}`;

export function mediaRepo(pool: Pool, notifier: Notifier): MediaRepo {
  const place = (row: Pick<MediumRow, 'tenant_id' | 'branch_id'>) => ({
    tenantId: row.tenant_id,
    branchId: row.branch_id,
  });
  const usedBy = async (db: Pick<Pool, 'query'>, tenantId: number) => {
    const { rows } = await query<{ bytes: number }>(
      db,
      'SELECT coalesce(sum(bytes + coalesce(preview_bytes, 0)), 0) AS bytes FROM media WHERE tenant_id = $1',
      [tenantId],
    );
    return rows[0]?.bytes ?? 0;
  };

  return {
    insert: (row, audit, quotaBytes) =>
      transaction(pool, async (client) => {
        if (quotaBytes !== undefined) {
          // The tenant's row is the lock: uploads of one tenant check and insert in turn.
          await query(client, 'SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [row.tenant_id]);
          const used = await usedBy(client, row.tenant_id);
          if (used + row.bytes + (row.preview_bytes ?? 0) > quotaBytes) return { used };
        }
        const { rows } = await query<{ rowid: number }>(
          client,
          `INSERT INTO media (${MEDIUM_COLUMNS.join(', ')})
           VALUES (${MEDIUM_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING rowid`,
          MEDIUM_COLUMNS.map((c) => row[c]),
        );
        const inserted = { ...row, rowid: rows[0]!.rowid };
        recordEventAtCommit(
          client,
          mediumEvent('medium.created', inserted),
          audit,
          place(inserted),
        );
        return { inserted };
      }).then((outcome) => {
        if ('inserted' in outcome) notifier.notify();
        return outcome;
      }),
    async find(branchId, id) {
      const { rows } = await query<MediumRow>(
        pool,
        `SELECT ${SELECT} FROM media WHERE branch_id = $1 AND id = $2`,
        [branchId, id],
      );
      return rows[0];
    },
    async placed(id) {
      const { rows } = await query<PlacedMediumRow>(
        pool,
        `SELECT media.rowid, ${MEDIUM_COLUMNS.map((c) => `media.${c}`).join(', ')},
           tenants.host AS tenant_host, branches.name AS branch_name FROM media
         JOIN branches ON branches.id = media.branch_id JOIN tenants ON tenants.id = media.tenant_id
         WHERE media.id = $1`,
        [id],
      );
      return rows[0];
    },
    async list(branchId, limit, offset) {
      const [count, page] = await Promise.all([
        query<{ total: number }>(pool, 'SELECT count(*) AS total FROM media WHERE branch_id = $1', [
          branchId,
        ]),
        query<MediumRow>(
          pool,
          `SELECT ${SELECT} FROM media WHERE branch_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
          [branchId, limit, offset],
        ),
      ]);
      return { total: count.rows[0]!.total, rows: page.rows };
    },
    async remove(rowid, audit) {
      const removed = await transaction(pool, async (client) => {
        const { rows } = await query<MediumRow>(
          client,
          `DELETE FROM media WHERE rowid = $1 RETURNING ${SELECT}`,
          [rowid],
        );
        const row = rows[0];
        if (row) recordEventAtCommit(client, mediumEvent('medium.deleted', row), audit, place(row));
        return row !== undefined;
      });
      if (removed) notifier.notify();
      return removed;
    },
    bytesUsed: (tenantId) => usedBy(pool, tenantId),
    async allKeys() {
      const { rows } = await query<MediumKeys>(
        pool,
        'SELECT rowid, id, blob_key, preview_key FROM media',
      );
      return rows;
    },
    async dropPreview(rowid) {
      await query(
        pool,
        `UPDATE media SET preview_key = NULL, preview_format = NULL, preview_mime_type = NULL,
         preview_bytes = NULL, preview_width = NULL, preview_height = NULL WHERE rowid = $1`,
        [rowid],
      );
    },
  };
}
