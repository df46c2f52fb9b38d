import type { AggregateType } from '@ipledger/domain';

type Event = { type: string; data: object };

/**
 * Given/when/then for a decider (as Emmett's DeciderSpecification): `given` events folded by the
 * aggregate's own evolve, `when` a decision on the state they make, `then` the events it decides
 * (or null for nothing to do), or `thenThrows` its refusal. `evolved` is the same fold, for specs
 * that walk a state through many decisions; `evolvedAt` records the events at an instant, as the
 * event store does, for what depends on time (reuse delays, idle blocks).
 */
export function deciderSpecification<S>(type: AggregateType<S>) {
  let version = 0;
  const fold = (state: S, events: Array<Event | null>, recordedAt?: Date): S =>
    events.reduce<S>(
      (folded, event) =>
        event ? type.evolve(folded, { type: event.type, data: { ...event.data }, version: ++version, recordedAt }) : folded,
      state,
    );
  const evolved = (state: S, ...events: Array<Event | null>): S => fold(state, events);
  return {
    evolved,
    evolvedAt: (recordedAt: Date, state: S, ...events: Array<Event | null>): S => fold(state, events, recordedAt),
    given: (...events: Event[]) => {
      const state = evolved(type.initialState(), ...events);
      return {
        state,
        when: <R>(decide: (state: S) => R) => ({
          then: (expected: R) => expect(decide(state)).toEqual(expected),
          thenThrows: (expected: object) => expect(() => decide(state)).toThrow(expect.objectContaining(expected)),
        }),
      };
    },
  };
}
