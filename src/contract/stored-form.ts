/**
 * The form in which a key's value is stored and shown (beside identity.ts's form in which it is
 * compared). An email's domain is case-insensitive everywhere (RFC 5321 §2.4) and is stored in
 * lower case, so `USER403@Corp.Example.com` reads back as `USER403@corp.example.com`; its local
 * part is kept as typed, since the standard leaves its case to the receiving system (and the
 * comparison ignores it anyway). Every other value is stored as given.
 */
export function storedForm(field: string, value: string): string {
  if (field !== 'email') return value;
  const at = value.lastIndexOf('@');
  return at < 0 ? value : value.slice(0, at + 1) + value.slice(at + 1).toLowerCase();
}
