/**
 * A multipart/form-data body built by hand so it can stream a file of any size: the parts'
 * headers are known in advance, so Content-Length is exact and no chunked encoding is needed.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { encodeFormName } from '../contract/file-name.js';

export interface FieldPart {
  name: string;
  value: string;
  contentType?: string;
}

export interface FilePart {
  name: string;
  fileName: string;
  contentType: string;
  filePath: string;
  size: number;
}

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  /** Opens a fresh stream of the whole body (again on a retry). */
  open: () => AsyncIterable<Uint8Array>;
}

/** Quotes a parameter value the way browsers do (WHATWG): `"`, CR and LF percent-encoded. */
const quoted = (value: string) => `"${encodeFormName(value)}"`;

export function multipartBody(
  fields: FieldPart[],
  file: FilePart,
  onProgress?: (sentBytes: number, totalBytes: number) => void,
): MultipartBody {
  const boundary = `----roster-${randomBytes(12).toString('hex')}`;
  const fieldText = fields
    .map((f) => {
      const type = f.contentType ? `Content-Type: ${f.contentType}\r\n` : '';
      return `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(f.name)}\r\n${type}\r\n${f.value}\r\n`;
    })
    .join('');
  const head = Buffer.from(
    `${fieldText}--${boundary}\r\n` +
      `Content-Disposition: form-data; name=${quoted(file.name)}; filename=${quoted(file.fileName)}\r\n` +
      `Content-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + file.size + tail.length,
    async *open() {
      yield head;
      let sent = 0;
      onProgress?.(0, file.size);
      for await (const chunk of createReadStream(file.filePath)) {
        sent += (chunk as Buffer).length;
        yield chunk as Buffer;
        onProgress?.(sent, file.size);
      }
      yield tail;
    },
  };
}
