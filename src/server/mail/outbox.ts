/**
 * Invitation mail. Without an SMTP relay configured, messages are written as .eml files to
 * `<data>/outbox/`, atomically (temp file + rename), so an operator can inspect or forward them.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Invitation {
  userId: string;
  email: string;
  firstName: string | null;
  tenantHost: string;
}

export interface Mailer {
  sendInvitation(invitation: Invitation): Promise<void>;
}

/** Header values must not carry line breaks (header injection). */
const headerSafe = (s: string) => s.replace(/[\r\n]+/g, ' ');

export function outboxMailer(dataDir: string): Mailer {
  const dir = join(dataDir, 'outbox');
  return {
    async sendInvitation(inv) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${inv.userId}.eml`;
      const greeting = inv.firstName ? `Hello ${inv.firstName},` : 'Hello,';
      const host = inv.tenantHost === '*' ? 'your organisation' : inv.tenantHost;
      const message = [
        `To: ${headerSafe(inv.email)}`,
        'From: roster@localhost',
        `Subject: ${headerSafe(`You are invited to ${host}`)}`,
        `Date: ${new Date().toUTCString()}`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        greeting,
        '',
        `you have been invited to ${host}. Sign up once with this email address to get started.`,
        '',
      ].join('\r\n');
      const tmp = join(dir, `.${name}.tmp`);
      await writeFile(tmp, message, { mode: 0o600 });
      await rename(tmp, join(dir, name));
    },
  };
}
