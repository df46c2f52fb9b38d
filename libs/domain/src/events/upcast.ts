/**
 * The one place where events recorded in an older schema version are turned into the current
 * shape, before anything folds or projects them. The log itself is never rewritten.
 */
export function upcast<E extends { type: string; schemaVersion: number; data: Record<string, unknown> }>(event: E): E {
  if (event.type === 'IpReleased' && event.schemaVersion < 2) {
    // v1 did not record the holder: readers get explicit nulls rather than missing fields
    return { ...event, schemaVersion: 2, data: { node: null, namespace: null, pod: null, ...event.data } };
  }
  return event;
}
