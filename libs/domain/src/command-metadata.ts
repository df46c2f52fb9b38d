/** Who asked and why: copied into the metadata of every event a command appends (the audit trail). */
export interface CommandMetadata {
  actor: string;
  source: 'rest' | 'kubernetes';
  correlationId: string;
  causationId?: string;
}
