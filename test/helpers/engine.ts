/**
 * Suites that need an engine a developer's machine may lack (root for tmpfs, chromium, ffmpeg…)
 * run where it is, print one line saying how to enable them where it is not, and never skip
 * under CI=true: `.ci/run` provides every engine, so a missing one there is a failure.
 */
export function engineAvailable(name: string, available: boolean, howToEnable: string): boolean {
  if (available) return true;
  if (process.env.CI === 'true') {
    throw new Error(`${name} is required under CI=true: ${howToEnable}`);
  }
  process.stderr.write(`skipping ${name} tests: ${howToEnable}\n`);
  return false;
}
