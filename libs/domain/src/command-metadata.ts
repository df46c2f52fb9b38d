/** Who asked and why: copied into the metadata of every event a command appends (the audit trail). */
export interface CommandMetadata {
  actor: string;
  source: 'rest' | 'kubernetes';
  correlationId: string;
  causationId?: string;
  /** the NATS message (`Nats-Msg-Id`) and stream sequence that carried a Kubernetes change */
  messageId?: string;
  streamSequence?: number;
}
