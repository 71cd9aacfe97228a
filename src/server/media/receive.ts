/**
 * Receives POST /media's multipart body: `metaData` (JSON hint) and one `file` part, streamed
 * straight into the blob store's sink by the multipart parser (server/multipart.ts), never held
 * in memory. The caller aborts the write on failure; the error middleware deals with the rest of
 * a refused body (see discardRest in http/body.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediumType } from '../../contract/medium.js';
import { AppError } from '../errors.js';
import { baseName, type MultipartParser, multipartParser } from '../multipart.js';
import { parseMetaData } from './meta-data.js';

/** Room for the metaData part and part headers on top of the file itself. */
export const MULTIPART_OVERHEAD = 64 * 1024;
const META_DATA_MAX = 16 * 1024;

/** An upload as the service takes it: the HTTP layer adapts its request to this. */
export interface UploadBody {
  stream: Readable;
  headers: IncomingHttpHeaders;
  /** Aborted when the client goes away: nobody would hear of the upload. */
  signal: AbortSignal;
}

export interface ReceivedFile {
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
 * `sink` gets the file's bytes as they arrive, with backpressure; its error fails the upload.
 * The caller owns it either way (commits or aborts it).
 */
export function receiveUpload(
  body: UploadBody,
  sink: Writable,
  maxBytes: number,
): Promise<ReceivedFile> {
  const { stream: req, signal } = body;
  return new Promise((resolve, reject) => {
    let parser: MultipartParser;
    try {
      // File names are decoded as UTF-8 by the fork (1.x needed defParamCharset for that).
      parser = multipartParser({
        headers: { ...body.headers, 'content-type': body.headers['content-type'] ?? '' },
        limits: {
          // Counted as exceeded: maxBytes pass, the byte after them is refused.
          fileSize: maxBytes,
          // Two: metaData may come as a file part too (curl -F metaData=@meta.json).
          files: 2,
          // Two: a file part sent with filename="" comes as a field, and must reach the field
          // handler to be named as what it is (with one, it was 'more than one metaData').
          fields: 2,
          // Counted as exceeded: the third part is the one refused.
          parts: 2,
          fieldSize: META_DATA_MAX,
          headerPairs: 20,
        },
      });
    } catch (err) {
      reject(bad(`malformed multipart body: ${(err as Error).message}`));
      return;
    }

    let sawFile = false;
    let written: Promise<Omit<ReceivedFile, 'hint'>> | undefined;
    let hint: MediumType | undefined;
    let settled = false;

    const onAbort = () => fail(aborted());
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      req.unpipe(parser);
      reject(err);
    };

    sink.on('error', fail);

    let sawMetaData = false;
    const takeMetaData = (value: string) => {
      try {
        hint = parseMetaData(value);
      } catch (err) {
        fail(err);
      }
    };

    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (settled) return;
      if (name === 'file') {
        return fail(bad('the file part has no file name; send it with filename="…"'));
      }
      if (name !== 'metaData') return fail(bad(`unknown part '${name}'; send metaData and file`));
      if (valueTruncated) return fail(bad(`the metaData part is over ${META_DATA_MAX} bytes`));
      if (sawMetaData) return fail(bad('more than one metaData part'));
      sawMetaData = true;
      takeMetaData(value);
    });

    parser.on('file', (name, stream, fileName, _encoding, mimeType) => {
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
      if (sawFile) {
        stream.resume();
        return fail(bad('more than one file part; send one file per upload'));
      }
      sawFile = true;
      stream.once('limit', () => fail(tooLarge(maxBytes)));
      if (sink.errored) return fail(sink.errored);
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      written = pipeline(stream, sink).then(() => ({
        bytes,
        fileName: baseName(fileName),
        partType: mimeType,
      }));
      written.catch(fail);
    });

    parser.on('filesLimit', () => fail(bad('too many file parts; send metaData and one file')));
    parser.on('fieldsLimit', () => fail(bad('too many parts; send metaData and one file only')));
    parser.on('partsLimit', () => fail(bad('too many parts; send metaData and one file only')));
    parser.on('error', (err) => fail(bad(`malformed multipart body: ${(err as Error).message}`)));
    parser.on('finish', () => {
      if (!written)
        return fail(bad("the upload has no file part; send the file in a part named 'file'"));
      written.then((file) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve({ ...file, hint });
      }, fail);
    });

    req.on('error', () => fail(aborted()));
    if (signal.aborted) return fail(aborted());
    signal.addEventListener('abort', onAbort);
    req.pipe(parser);
  });
}
