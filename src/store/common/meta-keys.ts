/** Keys of the meta table that more than one module reads (the service, copy, the moved mark). */

/** The CDN's URL-signing secret: the same in a data dir and in every copy of it. */
export const SIGNING_SECRET_KEY = 'cdn.signing-secret';
