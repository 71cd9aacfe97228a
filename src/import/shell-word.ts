/** A word as a shell reads it: quoted when it holds anything a shell would interpret. */
export const shellWord = (w: string) =>
  /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`;
