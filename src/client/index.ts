/**
 * The typed API client: `createApiClient(opts)` binds every endpoint function to one HTTP core.
 * CLI commands get it from their Deps and never touch undici themselves.
 */

import type { Readable } from 'node:stream';
import type { Medium, Page } from '../contract/medium.js';
import type { UserV3 } from '../contract/user.js';
import { type BranchInfo, getBranch } from './branch.js';
import { createHttpClient, type HttpClient, type HttpClientOptions } from './http.js';
import {
  deleteMedium,
  downloadUrl,
  getMedium,
  listMedia,
  type UploadOptions,
  uploadMedium,
} from './media.js';
import { type PageRequest, paginate } from './paginate.js';
import {
  type CreatedUser,
  createRequires,
  createUser,
  deleteUser,
  getUser,
  type ListUsersParams,
  listUsers,
  type UserCreateBody,
  type UserDefaults,
  type UserUpdateBody,
  updateUser,
} from './users.js';

export type { BranchInfo } from './branch.js';
export { parseCdnAuthHost, parseCdnAuthList } from './cdn-auth.js';
export * from './errors.js';
export type * from './http.js';
export { createHttpClient } from './http.js';
export type { UploadOptions } from './media.js';
export { guessMediumType } from './media.js';
export type { MediaTypeMemory, Remembered } from './media-types.js';
export { type PageRequest, paginate } from './paginate.js';
export type {
  CreatedUser,
  ListUsersParams,
  UserCreateBody,
  UserDefaults,
  UserUpdateBody,
} from './users.js';

export interface ApiClientOptions extends HttpClientOptions {
  /**
   * cdnAuth: hosts besides the API's origin that media downloads send the token to (over
   * https). Default none: the token goes to the API's origin only.
   */
  cdnAuth?: readonly string[];
  /** Fills role and locale where the service's request type requires them (profile defaults). */
  userDefaults?: UserDefaults;
}

export interface ApiClient {
  readonly http: HttpClient;
  listUsers(params?: ListUsersParams): Promise<Page<UserV3>>;
  /** Every user matching `params`, following pages (`ahead`: requests sent ahead, see paginate). */
  iterateUsers(
    params?: Omit<ListUsersParams, 'limit' | 'offset' | 'after'>,
    pageSize?: number,
    ahead?: number,
  ): AsyncGenerator<UserV3, void, undefined>;
  getUser(idOrExternalId: string): Promise<UserV3>;
  /** The token's branch (and, on Roster, its scopes). */
  getBranch(): Promise<BranchInfo>;
  /** Creates a user; fields the service's type requires come from the body, else the defaults. */
  createUser(body: UserCreateBody): Promise<CreatedUser>;
  /**
   * The fields the service requires in a new user (`role`, `config.locale` on the platform);
   * may ask the service's catalog first.
   */
  createRequires(): Promise<readonly string[]>;
  /** The role and locale this client fills in where required; commands may add to it. */
  readonly userDefaults: UserDefaults;
  updateUser(idOrExternalId: string, patch: UserUpdateBody): Promise<UserV3>;
  deleteUser(idOrExternalId: string): Promise<void>;
  listMedia(params?: Partial<PageRequest>): Promise<Page<Medium>>;
  /** Every medium, newest first, following pages. */
  iterateMedia(pageSize?: number): AsyncGenerator<Medium, void, undefined>;
  getMedium(id: string): Promise<Medium>;
  deleteMedium(id: string): Promise<void>;
  uploadMedium(opts: UploadOptions): Promise<Medium>;
  downloadUrl(url: string, opts?: { signal?: AbortSignal }): Promise<Readable>;
  /** Closes the connection pools. */
  close(): Promise<void>;
}

/** Builds the client: one keep-alive pool per origin, shared by every call. */
export function createApiClient(opts: ApiClientOptions): ApiClient {
  const http = createHttpClient(opts);
  const userDefaults: UserDefaults = { ...opts.userDefaults };
  return {
    http,
    listUsers: (params) => listUsers(http, params),
    iterateUsers: (params = {}, pageSize = 100, ahead = 0) =>
      paginate((page) => listUsers(http, { ...params, ...page }), { pageSize, ahead }),
    getUser: (id) => getUser(http, id),
    getBranch: () => getBranch(http),
    createUser: (body) => createUser(http, body, userDefaults),
    createRequires: () => createRequires(http),
    userDefaults,
    updateUser: (id, patch) => updateUser(http, id, patch),
    deleteUser: (id) => deleteUser(http, id),
    listMedia: (params) => listMedia(http, params),
    iterateMedia: (pageSize = 100) => paginate((page) => listMedia(http, page), { pageSize }),
    getMedium: (id) => getMedium(http, id),
    deleteMedium: (id) => deleteMedium(http, id),
    uploadMedium: (o) => uploadMedium(http, o),
    downloadUrl: (url, o) => downloadUrl(http, url, { ...o, cdnAuth: opts.cdnAuth }),
    close: () => http.close(),
  };
}
