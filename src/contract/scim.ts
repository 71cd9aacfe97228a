/** Where a service answers SCIM 2.0: its origin (a tenant's public URL) plus this path. */
export const SCIM_BASE_PATH = '/scim/v2';

/** The SCIM base URL an identity provider is given, from a tenant's public URL. */
export const scimBaseUrl = (publicUrl: string) =>
  `${publicUrl.replace(/\/+$/, '').replace(/\/scim\/v2$/, '')}${SCIM_BASE_PATH}`;
