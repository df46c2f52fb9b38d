import type { ExpectedHead } from '@ipledger/event-store';

/** `<count>:<hash>` as GET /v1/audit/head's fields give it; undefined when malformed. */
export function parseHead(text: string): ExpectedHead | undefined {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text);
  return match ? { count: Number(match[1]), hash: match[2] } : undefined;
}

/** What a malformed --head is told. */
export const badHead = (text: string) =>
  `--head "${text}" must be <count>:<hash>, a whole number and 64 lowercase hex digits (GET /v1/audit/head)`;
