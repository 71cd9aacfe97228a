/** Medium types as the spec describes them (media endpoints have one version: application/json). */

export const MEDIUM_TYPES = ['image', 'video', 'pdf', 'raw'] as const;
export type MediumType = (typeof MEDIUM_TYPES)[number];

export interface ResourceInfo {
  type: MediumType;
  bytes: number;
  width?: number;
  height?: number;
  url: string;
  format: string;
  mimeType: string;
  /** Seconds, fractional; videos only. */
  duration?: number;
}

/** The one pre-rendered transformation: a preview image of the medium. */
export const PREVIEW = 't_preview';

/**
 * 100 megapixels: a 24-MP camera JPEG gets a preview, a 30000² PNG bomb does not (images and
 * PDFs). Here so the service and the CLI explaining a missing preview say the same.
 */
export const MAX_PREVIEW_PIXELS = 100_000_000;

/** Why an image this size has no preview, or undefined when its size is no reason. */
export function pixelLimitReason(width?: number, height?: number): string | undefined {
  if (!width || !height || width * height <= MAX_PREVIEW_PIXELS) return undefined;
  const mp = (n: number) => Math.round(n / 1_000_000);
  return `the image has ${mp(width * height)} megapixels; previews are made up to ${mp(MAX_PREVIEW_PIXELS)}`;
}

export interface Transformation {
  transformationString: string;
  status: 'FINISHED';
  resourceInfo: ResourceInfo;
}

export interface Medium {
  id: string;
  ownerID: string;
  ownerType: 'token';
  publicID: string;
  resourceInfo: ResourceInfo;
  transformations?: Record<string, Transformation>;
  /**
   * Roster extension, in an upload's answer only: why a file of a type that gets previews
   * (image, PDF, video) has none ("the image is truncated").
   */
  previewError?: string;
  fileName: string;
  entityType: 'medium';
}

/** The list envelope shared by GET /users and GET /media. */
export interface Page<T> {
  total: number;
  /**
   * GET /users on Roster with a `query` that matches more users than the service counts
   * (SEARCH_COUNT_UP_TO): `false`, and `total` is then that bound: more match. Absent: exact.
   */
  totalExact?: false;
  limit: number;
  offset: number;
  data: T[];
  /**
   * GET /users on Roster: a cursor for the page after this one (`after=`), absent on the last
   * page. The real platform and GET /media have none: offset paging there.
   */
  next?: string;
}
