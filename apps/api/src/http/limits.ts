import { applyDecorators } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { MAX_HANDLE_LENGTH, MAX_LABELS, MAX_REUSE_DELAY_SECONDS, MAX_SELECTOR_LENGTH } from '@ipledger/domain';

/**
 * The bounds of every input the API takes, in one place: the DTOs enforce them (400) and show them
 * in the OpenAPI document; docs/operations.md "Limits on input" lists them. The domain checks names exactly
 * (DNS-1123); these bounds stop an oversized value before any work is done on it.
 */
export const LIMITS = {
  /** a DNS-1123 subdomain: node and pod names */
  name: 253,
  /** a DNS-1123 label: pool names and namespaces */
  shortName: 63,
  handle: MAX_HANDLE_LENGTH,
  uid: 128,
  /** an address, a CIDR or a range of two addresses */
  address: 100,
  /** a label key: a 253-character prefix, "/" and a 63-character name */
  labelKey: 317,
  labels: MAX_LABELS,
  selector: MAX_SELECTOR_LENGTH,
  /** entries of `reserved` */
  reserved: 1024,
  /** a pool's reuseDelaySeconds */
  reuseDelaySeconds: MAX_REUSE_DELAY_SECONDS,
  /** names in an allocation's `pools` */
  pools: 100,
  /** a continue token or an events cursor */
  token: 2048,
  streamId: 512,
  eventType: 128,
  /** any path parameter (a handle percent-encoded may be longer than the handle) */
  pathParam: 1024,
} as const;

/** Documents path parameters with the bound refuseLongPathParams enforces. */
export const PathParams = (...names: string[]) =>
  applyDecorators(...names.map((name) => ApiParam({ name, schema: { type: 'string', maxLength: LIMITS.pathParam } })));
