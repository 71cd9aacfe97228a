/**
 * What Node's own deadlines leave open, per connection:
 * - at most `maxPerClient` open connections per client address: one client trickling headers
 *   on thousands of sockets would otherwise take the process to its file limit (EMFILE), and
 *   then accepts, uploads and the database fail for everyone. The connection over the cap is
 *   answered 503 with Retry-After and closed before any of its bytes are read as a request;
 * - a connection that sends nothing at all is cut at the headers deadline: Node's deadline
 *   counts from a request's first byte, so a silent socket stayed open for ever.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { answerAndClose } from './client-error.js';

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client (a dual-stack listener reports the first). */
const clientOf = (address: string) =>
  address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;

export interface ConnectionGuards {
  /** 0: no cap. */
  maxPerClient: number;
  /** A connection that has sent no byte this long after it opened is answered 408. */
  headersTimeoutMs: number;
}

export function guardConnections(
  server: Server,
  { maxPerClient, headersTimeoutMs }: ConnectionGuards,
) {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined) {
      socket.destroy();
      return;
    }
    const client = clientOf(socket.remoteAddress);
    const count = (open.get(client) ?? 0) + 1;
    if (maxPerClient > 0 && count > maxPerClient) {
      answerAndClose(
        socket,
        'serviceUnavailable',
        `this client address holds ${maxPerClient} open connections already, the most the server allows one address; reuse them (keep-alive) or close some`,
        ['Retry-After: 5'],
      );
      return;
    }
    open.set(client, count);
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0 && !socket.destroyed) {
        answerAndClose(socket, 'requestTimeout', 'no request arrived in time');
      }
    }, headersTimeoutMs);
    silent.unref();
    socket.once('close', () => {
      clearTimeout(silent);
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}
