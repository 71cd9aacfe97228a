/** A medium row as the spec's Medium; URLs come from a function so the CDN base can vary. */
import type { Medium, MediumType, ResourceInfo } from '../../contract/medium.js';
import { PREVIEW } from '../../contract/medium.js';
import type { MediumRow } from '../../store/types.js';
import { type MediumPlace, previewPathOf, publicIdOf } from './public-id.js';

/** Turns a public path into a fetchable (signed) URL. */
export type UrlFor = (path: string) => string;

/** Leaves out what a type does not have, as the spec does (duration only for videos…). */
function info(
  fields: Omit<ResourceInfo, 'width' | 'height' | 'duration'> & {
    width: number | null;
    height: number | null;
    duration: number | null;
  },
): ResourceInfo {
  const out: ResourceInfo = {
    type: fields.type,
    bytes: fields.bytes,
    url: fields.url,
    format: fields.format,
    mimeType: fields.mimeType,
  };
  if (fields.width !== null) out.width = fields.width;
  if (fields.height !== null) out.height = fields.height;
  if (fields.duration !== null) out.duration = fields.duration;
  return out;
}

export function represent(row: MediumRow, place: MediumPlace, urlFor: UrlFor): Medium {
  const publicID = publicIdOf(place);
  const medium: Medium = {
    id: row.id,
    ownerID: row.owner_id,
    ownerType: 'token',
    publicID,
    resourceInfo: info({
      type: row.type as MediumType,
      bytes: row.bytes,
      width: row.width,
      height: row.height,
      duration: row.duration,
      url: urlFor(publicID),
      format: row.format,
      mimeType: row.mime_type,
    }),
    fileName: row.file_name,
    entityType: 'medium',
  };
  if (row.preview_key !== null) {
    medium.transformations = {
      [PREVIEW]: {
        transformationString: PREVIEW,
        status: 'FINISHED',
        resourceInfo: info({
          type: 'image',
          bytes: row.preview_bytes!,
          width: row.preview_width,
          height: row.preview_height,
          duration: null,
          url: urlFor(previewPathOf(place, row.preview_format!)),
          format: row.preview_format!,
          mimeType: row.preview_mime_type!,
        }),
      },
    };
  }
  return medium;
}
