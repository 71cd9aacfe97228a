/** The `metaData` part of POST /media: JSON `{"type": …}`, a hint only (the bytes decide). */
import { z } from 'zod';
import { MEDIUM_TYPES, type MediumType } from '../../contract/medium.js';
import { fieldIssues } from '../../contract/schemas.js';
import { AppError, validationError } from '../errors.js';

const metaDataSchema = z.strictObject({
  type: z.enum(MEDIUM_TYPES, `must be one of ${MEDIUM_TYPES.join(', ')}`).optional(),
});

export function parseMetaData(value: string): MediumType | undefined {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new AppError('validation', 'the metaData part is not valid JSON; send {"type":"image"}', [
      { field: 'metaData', message: 'is not valid JSON' },
    ]);
  }
  const parsed = metaDataSchema.safeParse(json);
  if (!parsed.success) throw validationError(fieldIssues(parsed.error, 'metaData'), 'metaData');
  return parsed.data.type;
}
