import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // e2e tests spawn real servers; two cores here, so keep the pool small.
    maxWorkers: 2,
  },
});
