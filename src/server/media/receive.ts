/**
 * Receives POST /media's multipart body: `metaData` (JSON hint) and one `file` part, streamed
 * straight to a temp file with busboy (never held in memory). Every failure removes the temp
 * file before it is reported; the error middleware deals with the rest of a refused body
 * (see discardRest in http/body.ts).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { MediumType } from '../../contract/medium.js';
import { AppError } from '../errors.js';
import { parseMetaData } from './meta-data.js';

/** Room for the metaData part and part headers on top of the file itself. */
export const MULTIPART_OVERHEAD = 64 * 1024;
const META_DATA_MAX = 16 * 1024;

export interface ReceivedFile {
  tempPath: string;
  bytes: number;
  /** The part's file name as sent (not yet sanitised); undefined when it had none. */
  fileName: string | undefined;
  /** The part's Content-Type: a hint, like metaData. */
  partType: string;
  hint: MediumType | undefined;
}

const bad = (message: string) => new AppError('validation', message);
/** The client went away before the body was complete (nobody reads this answer). */
const aborted = () => bad('the client aborted the upload before the body was complete');
export const tooLarge = (max: number) =>
  new AppError('payloadTooLarge', `the file is larger than the upload limit of ${max} bytes`);

/**
 * `sink`, when given, gets the file's bytes too, as they arrive (an object store's upload), with
 * backpressure from both; its error fails the upload. The caller ends up owning it either way.
 */
export function receiveUpload(
  req: IncomingMessage,
  tempPath: string,
  maxBytes: number,
  sink?: Writable,
): Promise<ReceivedFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        preservePath: false,
        limits: {
          // busboy reports reaching fileSize; one more byte than the limit is what is refused.
          fileSize: maxBytes + 1,
          // Two: metaData may come as a file part too (curl -F metaData=@meta.json).
          files: 2,
          fields: 1,
          // busboy reports reaching this, not exceeding it: a third part is already too many.
          parts: 3,
          fieldSize: META_DATA_MAX,
          fieldNameSize: 100,
          headerPairs: 20,
        },
      });
    } catch (err) {
      reject(bad(`malformed multipart body: ${(err as Error).message}`));
      return;
    }

    let out: WriteStream | undefined;
    let written: Promise<Omit<ReceivedFile, 'hint' | 'tempPath'>> | undefined;
    let hint: MediumType | undefined;
    let settled = false;

    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      const file = out;
      const closed = new Promise<void>((done) => {
        if (!file || file.closed) return done();
        file.once('close', () => done());
        file.destroy();
      });
      // The write stream may still be opening the file: remove it only once it is closed.
      closed
        .then(() => rm(tempPath, { force: true }))
        .then(
          () => reject(err),
          () => reject(err),
        );
    };

    sink?.on('error', fail);

    let sawMetaData = false;
    const takeMetaData = (value: string) => {
      try {
        hint = parseMetaData(value);
      } catch (err) {
        fail(err);
      }
    };

    parser.on('field', (name, value, info) => {
      if (name === 'file') {
        return fail(bad('the file part has no file name; send it with filename="…"'));
      }
      if (name !== 'metaData') return fail(bad(`unknown part '${name}'; send metaData and file`));
      if (info.valueTruncated) return fail(bad(`the metaData part is over ${META_DATA_MAX} bytes`));
      if (sawMetaData) return fail(bad('more than one metaData part'));
      sawMetaData = true;
      takeMetaData(value);
    });

    parser.on('file', (name, stream, info) => {
      if (settled) return void stream.resume();
      if (name === 'metaData') {
        if (sawMetaData) return fail(bad('more than one metaData part'));
        sawMetaData = true;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > META_DATA_MAX) fail(bad(`the metaData part is over ${META_DATA_MAX} bytes`));
          else chunks.push(chunk);
        });
        stream.on('end', () => takeMetaData(Buffer.concat(chunks).toString('utf8')));
        return;
      }
      if (name !== 'file') {
        stream.resume();
        return fail(bad(`unknown file part '${name}'; the file goes in the part named 'file'`));
      }
      if (out) {
        stream.resume();
        return fail(bad('more than one file part; send one file per upload'));
      }
      const file = createWriteStream(tempPath, { flags: 'wx', mode: 0o600 });
      out = file;
      stream.once('limit', () => fail(tooLarge(maxBytes)));
      if (sink) {
        if (sink.errored) return fail(sink.errored);
        stream.pipe(sink);
      }
      written = pipeline(stream, file).then(() => ({
        bytes: file.bytesWritten,
        fileName: info.filename,
        partType: info.mimeType,
      }));
      written.catch(fail);
    });

    parser.on('filesLimit', () => fail(bad('too many file parts; send metaData and one file')));
    parser.on('fieldsLimit', () => fail(bad('more than one metaData part')));
    parser.on('partsLimit', () => fail(bad('too many parts; send metaData and one file only')));
    parser.on('error', (err: Error) => fail(bad(`malformed multipart body: ${err.message}`)));
    parser.on('close', () => {
      if (!written)
        return fail(bad("the upload has no file part; send the file in a part named 'file'"));
      written.then((file) => {
        if (settled) return;
        settled = true;
        // The body is in: from here the server works (queue, preview, storage), and that time
        // must not count against the client's idle timeout.
        req.socket?.setTimeout(0);
        resolve({ ...file, tempPath, hint });
      }, fail);
    });

    req.on('error', () => fail(aborted()));
    req.once('close', () => {
      if (!req.complete) fail(aborted());
    });
    req.pipe(parser);
  });
}
