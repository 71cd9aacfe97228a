/** A Medium as the service sends it, for media command tests. */
import type { Medium } from '../../../../src/contract/medium.js';

export function medium(overrides: Partial<Medium> & { bytes?: number } = {}): Medium {
  const { bytes = 22148, ...rest } = overrides;
  const id = rest.id ?? '6b0000000000000000000001';
  const fileName = rest.fileName ?? 'photo.png';
  return {
    id,
    ownerID: '6b00000000000000000000ff',
    ownerType: 'token',
    publicID: `_default/main/${id}/${fileName}`,
    resourceInfo: {
      type: 'image',
      bytes,
      url: `http://api.test/cdn/_default/main/${id}/${fileName}?expires=1&signature=s`,
      format: 'png',
      mimeType: 'image/png',
      width: 640,
      height: 480,
    },
    fileName,
    entityType: 'medium',
    transformations: {
      t_preview: {
        transformationString: 't_preview',
        status: 'FINISHED',
        resourceInfo: {
          type: 'image',
          bytes: 8, // 'jpegdata'
          url: `http://api.test/cdn/_default/main/${id}/t_preview/photo.jpg?expires=1&signature=s`,
          format: 'jpg',
          mimeType: 'image/jpeg',
          width: 640,
          height: 480,
        },
      },
    },
    ...rest,
  };
}

/** A raw medium without preview or dimensions. */
export const rawMedium = (id: string, fileName: string, bytes = 83): Medium => ({
  ...medium({ id, fileName }),
  resourceInfo: {
    type: 'raw',
    bytes,
    url: `http://api.test/cdn/x/${fileName}`,
    format: 'txt',
    mimeType: 'text/plain',
  },
  transformations: undefined,
});
