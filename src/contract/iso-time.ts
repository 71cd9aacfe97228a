/**
 * Times as the event log keeps and compares them: ISO 8601 in UTC with a four-digit year, which
 * sort as text in time order. Shared by the CLI's `--since`/`--until`, the API's `since=`/
 * `until=` and the store's window edges.
 */

/** An ISO 8601 date, or date and time, with an optional offset: what `since=`/`until=` take. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The log's text of an ISO time as given, or undefined when it is none or names no real time. */
export const parseIsoTime = (given: string): string | undefined =>
  ISO_TIME.test(given) && onTheCalendar(given) ? isoTimeOf(Date.parse(given)) : undefined;

/**
 * Whether an ISO time's date and clock exist: its month's days, hours to 23, minutes and seconds
 * to 59. Date.parse rolls 2026-02-30 over to 2 March and takes 24:00 as the next day's 00:00.
 */
function onTheCalendar(iso: string): boolean {
  const [, y, m, d, hh = '0', mm = '0', ss = '0'] =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(iso) ?? [];
  if (y === undefined) return false;
  // setUTCFullYear, not Date.UTC: that reads the years 0-99 as 1900-1999.
  const days = new Date(new Date(0).setUTCFullYear(Number(y), Number(m), 0)).getUTCDate();
  return (
    Number(m) >= 1 &&
    Number(m) <= 12 &&
    Number(d) >= 1 &&
    Number(d) <= days &&
    Number(hh) <= 23 &&
    Number(mm) <= 59 &&
    Number(ss) <= 59
  );
}

/**
 * The time `ms` as the log's text, or undefined outside the years 0000-9999: there toISOString
 * writes `+010000-…` or `-000001-…`, which compare as text against every stored time wrongly.
 */
export function isoTimeOf(ms: number): string | undefined {
  const at = new Date(ms);
  if (Number.isNaN(at.getTime())) return undefined;
  const iso = at.toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined;
}
