/** A real SMTP server on loopback (smtp-server), collecting what it receives, parsed. */
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtp {
  port: number;
  url: string;
  received: ParsedMail[];
  /** Resolves when `count` messages have arrived in total. */
  waitFor(count: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: ParsedMail[] = [];
  const waiters: { count: number; resolve: (m: ParsedMail[]) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          for (const w of waiters.filter((w) => received.length >= w.count)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(received);
          }
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    received,
    waitFor: (count) =>
      received.length >= count
        ? Promise.resolve(received)
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
