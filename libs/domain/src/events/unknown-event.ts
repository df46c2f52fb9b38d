/**
 * Closes a switch over events: a switch that forgets a type of its union does not compile here, and
 * an event of no known type met at run time (a newer release's) fails loudly rather than being
 * folded as if it had not happened.
 */
export function unknownEvent(event: never): never {
  throw new Error(`no case for event type "${String((event as { type?: unknown }).type)}"`);
}
