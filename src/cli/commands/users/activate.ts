/** `roster users activate <id…>`. */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { registerStatusVerb, runSetStatus } from './set-status.js';

export const register = (users: Command, deps: Deps, runFn = runSetStatus) =>
  registerStatusVerb(users, deps, 'activate', runFn);
