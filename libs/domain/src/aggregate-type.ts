/**
 * How the event store loads an aggregate: fold its events over an initial state. Structurally the
 * same as libs/event-store's AggregateType, declared here so the domain stays free of I/O imports.
 */
export interface AggregateType<S> {
  streamPrefix: string;
  initialState(): S;
  /**
   * The state after `event`, as a new state: `state` is never changed (the cache shares it).
   * `recordedAt`: when the event was recorded (the database clock); absent while a batch is decided on a draft.
   */
  evolve(state: S, event: { type: string; data: Record<string, unknown>; version: number; recordedAt?: Date }): S;
  /** evolve over many events for less than a copy of the state an event */
  fold?(state: S, events: ReadonlyArray<{ type: string; data: Record<string, unknown>; version: number; recordedAt?: Date }>): S;
  /**
   * `every`: the events between snapshots, given the state (a snapshot that grows with the state is spaced by its size).
   * `deserialize`: null for a snapshot it cannot read (a newer release's format): the stream is then replayed from its start.
   */
  snapshot?: { every(state: S): number; serialize(state: S): unknown; deserialize(json: unknown): S | null };
  sizeOf?(state: S): number;
}
