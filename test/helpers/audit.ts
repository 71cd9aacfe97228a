/** The audit a test's direct store writes record their events with. */
import type { Audit } from '../../src/store/types.js';

export const TEST_AUDIT: Audit = {
  actor: { type: 'system', name: 'test' },
  channel: 'system',
  requestId: 'test',
};
