/**
 * Where invitations go: `.eml` files in `<data>/outbox/` (no relay configured), or an SMTP relay
 * (`serve --smtp-url`). Both take the stored message as it is.
 */
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncPath } from '../../store/blobs/local.js';
import type { QueuedMessage } from '../../store/types.js';
import { MAIL_FROM } from './invitation.js';

export interface MailTransport {
  /** Resolves once the message is durably handed over; rejects to have it retried. */
  deliver(message: QueuedMessage): Promise<void>;
  close(): void;
}

/**
 * Files, written like the media: temp file, fsync, rename, fsync of the directory. A message's
 * file name is stable, so delivering it twice (a crash between the rename and the outbox row's
 * removal) leaves one file. Temp files a crash left are removed by `sweep`.
 */
export function emlTransport(dataDir: string): MailTransport & { sweep(): Promise<number> } {
  const dir = join(dataDir, 'outbox');
  return {
    async deliver(m) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `.${m.fileName}.tmp`);
      const handle = await open(tmp, 'w', 0o600);
      try {
        await handle.writeFile(m.message);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, join(dir, m.fileName));
      await fsyncPath(dir);
    },
    async sweep() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return 0;
      }
      const temps = names.filter((n) => n.startsWith('.') && n.endsWith('.tmp'));
      await Promise.all(temps.map((n) => rm(join(dir, n), { force: true })));
      return temps.length;
    },
    close() {},
  };
}

/** An SMTP relay, e.g. smtp://user:pass@mail.example.com:587 (STARTTLS when offered). */
export async function smtpTransport(url: string): Promise<MailTransport> {
  const { createTransport } = await import('nodemailer');
  const transport = createTransport(url);
  return {
    async deliver(m) {
      await transport.sendMail({
        envelope: { from: MAIL_FROM, to: [m.recipient] },
        raw: m.message,
      });
    },
    close: () => transport.close(),
  };
}
