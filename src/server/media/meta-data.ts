/** Parses the `metaData` part of POST /media with the contract's schema. */
import type { MediumType } from '../../contract/medium.js';
import { fieldIssues, mediaMetaDataSchema } from '../../contract/schemas.js';
import { AppError, validationError } from '../errors.js';

export function parseMetaData(value: string): MediumType | undefined {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new AppError('validation', 'the metaData part is not valid JSON; send {"type":"image"}', [
      { field: 'metaData', message: 'is not valid JSON' },
    ]);
  }
  const parsed = mediaMetaDataSchema.safeParse(json);
  if (!parsed.success) throw validationError(fieldIssues(parsed.error, 'metaData'), 'metaData');
  return parsed.data.type;
}
