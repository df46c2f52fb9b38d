/** Who asked and why: copied into the metadata of every event a command appends (the audit trail). */
export interface CommandMetadata {
  actor: string;
  source: 'rest' | 'kubernetes';
  correlationId: string;
  causationId?: string;
  /**
   * the NATS message (`Nats-Msg-Id`) and stream sequence that carried a Kubernetes change, and the
   * epoch of its stream (it grows each time the stream is made again, which numbers from 1 again)
   */
  messageId?: string;
  streamSequence?: number;
  streamEpoch?: number;
}
