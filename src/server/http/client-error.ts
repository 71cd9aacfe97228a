/**
 * Requests Node's HTTP parser refuses before the app sees them (oversized headers, garbage, a
 * request line never finished): answered in the contract's envelope, as every other error, and
 * the connection closed. Node's own answers are bare status lines.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ErrorKind, errorEnvelope } from '../../contract/errors.js';

function classify(code: string | undefined): [ErrorKind, string] {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return ['headersTooLarge', 'the request headers are larger than the server accepts'];
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return ['requestTimeout', 'the request was not complete in time'];
  }
  return ['validation', 'malformed HTTP request'];
}

export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [kind, message] = classify(err.code);
  answerAndClose(socket, kind, message);
}

/**
 * Writes an error answer straight to the socket and closes it once the answer is out. Not only
 * ended: a server socket is half-open (allowHalfOpen), so a client that never ends its own side,
 * and goes on trickling bytes, would keep an ended socket open for ever (Node reports each
 * connection's expired deadline once).
 */
export function answerAndClose(
  socket: Duplex,
  kind: ErrorKind,
  message: string,
  headers: string[] = [],
): void {
  const envelope = errorEnvelope(kind, message);
  const body = JSON.stringify(envelope);
  socket.once('finish', () => socket.destroy());
  socket.end(
    [
      `HTTP/1.1 ${envelope.statusCode} ${STATUS_CODES[envelope.statusCode]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Content-Type-Options: nosniff',
      'Cache-Control: no-store',
      'Connection: close',
      ...headers,
      '',
      body,
    ].join('\r\n'),
  );
}
