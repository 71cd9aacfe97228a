/**
 * Watches Object.prototype of this process (the in-process server's): what a pollution attempt
 * added or changed since the watch began, and a cleanup that takes it away again so one failed
 * test does not break every later file of the worker (test files share it: isolate: false).
 */
type Descriptors = Record<PropertyKey, PropertyDescriptor>;

const snapshot = (): Descriptors => Object.getOwnPropertyDescriptors(Object.prototype);

export function watchPrototype() {
  const before = snapshot();
  const keys = (d: Descriptors) => Reflect.ownKeys(d);
  return {
    /** Own keys of Object.prototype added or redefined since the watch began. */
    changes(): string[] {
      const now = snapshot();
      return keys(now)
        .filter((k) => {
          const was = before[k as string];
          const is = now[k as string]!;
          return !was || was.value !== is.value || was.get !== is.get || was.set !== is.set;
        })
        .map(String);
    },
    /** Puts Object.prototype back as it was. */
    restore(): void {
      const now = snapshot();
      for (const k of keys(now)) {
        if (!before[k as string]) delete (Object.prototype as Record<PropertyKey, unknown>)[k];
      }
      for (const k of keys(before))
        Object.defineProperty(Object.prototype, k, before[k as string]!);
    },
  };
}
