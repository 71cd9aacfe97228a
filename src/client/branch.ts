/** `GET /api/branch`: the token's branch (as on the real platform) and, on Roster, its scopes. */
import type { HttpClient } from './http.js';

export interface BranchInfo {
  id: string;
  name: string;
  slug?: string;
  /** A Roster extension; absent on services that do not list scopes. */
  scopes?: string[];
}

export async function getBranch(http: HttpClient): Promise<BranchInfo> {
  return (await http.json<BranchInfo>({ method: 'GET', url: '/branch' })).data;
}
