/** The invitation a new user with an email receives: composed once, stored, sent as it is. */
import type { OutboxMessage } from '../../store/types.js';

export interface Invitation {
  userId: string;
  email: string;
  firstName: string | null;
  tenantHost: string;
}

export const MAIL_FROM = 'roster@localhost';

/** Header values must not carry line breaks (header injection). */
const headerSafe = (s: string) => s.replace(/[\r\n]+/g, ' ');

/**
 * The whole message (RFC 5322). Its Message-ID is derived from the user, so every delivery of
 * it, retried or repeated after a crash, carries the same id and a receiver can drop duplicates.
 * The one-time password is never in it.
 */
export function composeInvitation(inv: Invitation, now = new Date()): OutboxMessage {
  const named = inv.tenantHost !== '*';
  const host = named ? inv.tenantHost : 'your organisation';
  const messageId = `<invitation.${inv.userId}@${named ? inv.tenantHost : 'roster.localhost'}>`;
  const greeting = inv.firstName ? `Hello ${inv.firstName},` : 'Hello,';
  const message = [
    `Message-ID: ${messageId}`,
    `To: ${headerSafe(inv.email)}`,
    `From: ${MAIL_FROM}`,
    `Subject: ${headerSafe(`You are invited to ${host}`)}`,
    `Date: ${now.toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    greeting,
    '',
    `you have been invited to ${host}. Sign up once with this email address to get started.`,
    '',
  ].join('\r\n');
  return {
    messageId,
    recipient: inv.email,
    fileName: `${now.toISOString().replace(/[:.]/g, '-')}-${inv.userId}.eml`,
    message,
  };
}
