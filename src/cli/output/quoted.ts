/**
 * A value as a change list shows it: bare, or in JSON quotes where it holds what separates
 * changes (`,` `;` `→` `=`), a quote, or space at an edge, so a list has one reading only.
 */
export const quoted = (v: string): string => (/[,;→="]|^\s|\s$|^$/.test(v) ? JSON.stringify(v) : v);
