/**
 * `value` frozen all the way down, so that any change to it throws: plain objects and arrays
 * (Object.freeze), and Maps and Sets too, whose contents Object.freeze leaves writable. For tests
 * that prove a function never changes what it is given.
 */
export function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  // frozen already: by an earlier call, on a state that shares its parts with the one frozen now
  if (typeof value !== 'object' || value === null || seen.has(value) || Object.isFrozen(value)) return value;
  seen.add(value);
  const refuse = (what: string) => () => {
    throw new TypeError(`${what} on a frozen ${value.constructor.name}`);
  };
  if (value instanceof Map) {
    for (const entry of value as Map<unknown, unknown>) deepFreeze(entry, seen);
    Object.assign(value, { set: refuse('set'), delete: refuse('delete'), clear: refuse('clear') });
  } else if (value instanceof Set) {
    for (const entry of value as Set<unknown>) deepFreeze(entry, seen);
    Object.assign(value, { add: refuse('add'), delete: refuse('delete'), clear: refuse('clear') });
  }
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}
