/**
 * What is wrong with a filter scim2-parse-filter refused, in words a provider's admin can act
 * on: the token and its 1-based position, or that the filter ends too soon. The library's own
 * messages name its internals ("[(EOT)] is not json", "as valFilter operator"), so they are
 * read here and never passed on.
 */

const OPERATORS = 'eq, ne, co, sw, ew, gt, ge, lt, le, pr';

/** The problem with `text`, given the parser's message about it. */
export function filterProblem(text: string, parserMessage: string): string {
  const at = (token: string, last = false) => {
    const i = last ? text.lastIndexOf(token) : text.indexOf(token);
    return i < 0 || token === '' ? '' : ` at position ${i + 1}`;
  };
  const ended = /EOT|token {2}/.test(parserMessage);
  const closing = /expected '([)\]])'/.exec(parserMessage);
  if (closing && ended) return `it ends before its closing '${closing[1]}'`;
  const operator = /^Unexpected token (\S+) (\S+) as valFilter operator/.exec(parserMessage);
  if (operator) {
    // The word after the attribute: found after a space, so "eq" inside a name is not it.
    const op = operator[2]!;
    const i = text.indexOf(` ${op}`);
    const where = i < 0 ? '' : ` at position ${i + 2}`;
    return `'${op}'${where} is not a comparison operator (${OPERATORS})`;
  }
  const value = /^\[(.*)\((\w+)\)\] is not json/.exec(parserMessage);
  if (value) {
    if (value[2] === 'EOT')
      return 'it ends where a value was expected (a quoted string, true, false, null or a number)';
    return `'${value[1]}'${at(value[1]!)} is not a value: quote a string ("…"), or give true, false, null or a number`;
  }
  const leftover = /^unexpected EOT .*\[([^\]]+)\],?$/.exec(parserMessage);
  if (leftover) return `'${leftover[1]}'${at(leftover[1]!, true)} follows a complete filter`;
  if (ended) return "it ends where an attribute or a '(' was expected";
  const token = /^Unexpected token (\S+)/i.exec(parserMessage);
  // The parser stops at the last token it read: of two alike ("or or"), the later one.
  if (token) return `'${token[1]}'${at(token[1]!, true)} was not expected there`;
  return 'it could not be read (RFC 7644 §3.4.2.2 gives the grammar)';
}
