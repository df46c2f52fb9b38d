import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, MaxLength } from 'class-validator';
import {
  DNS1123_LABEL_MAX_LENGTH,
  MAX_CLAIM_NAME_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  LABEL_KEY_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  MAX_HANDLE_LENGTH,
  MAX_LABELS,
  MAX_NETWORK_LENGTH,
  MAX_REUSE_DELAY_SECONDS,
  MAX_SELECTOR_LENGTH,
} from '@ipledger/domain';

/**
 * Each kind of text value the API takes, with its one limit: a value of a kind is checked by the
 * kind's one validator (TextOf) wherever it comes, a body field, a query parameter or a path
 * parameter, so a namespace too long for one route is too long for every route, with the same
 * answer. The domain checks names exactly (DNS-1123) where it takes them; these bounds stop an
 * oversized value before any work is done on it. The OpenAPI document carries each as maxLength
 * with `x-kind`; docs/operations.md "Limits on input" lists them (limits.spec.ts checks it agrees).
 */
export const TEXT_KINDS = {
  poolName: { max: DNS1123_LABEL_MAX_LENGTH, what: 'a pool name (DNS-1123 label)' },
  namespace: { max: DNS1123_LABEL_MAX_LENGTH, what: 'a namespace (DNS-1123 label)' },
  cluster: { max: DNS1123_LABEL_MAX_LENGTH, what: 'a cluster name (DNS-1123 label)' },
  nodeName: { max: DNS1123_SUBDOMAIN_MAX_LENGTH, what: 'a node name (DNS-1123 subdomain)' },
  podName: { max: DNS1123_SUBDOMAIN_MAX_LENGTH, what: 'a pod name (DNS-1123 subdomain)' },
  workloadName: { max: DNS1123_SUBDOMAIN_MAX_LENGTH, what: 'a StatefulSet, Deployment or ReplicaSet name (DNS-1123 subdomain)' },
  workloadKind: { max: DNS1123_LABEL_MAX_LENGTH, what: "an ip-set's workload kind (`Deployment`, `ReplicaSet`)" },
  network: { max: MAX_NETWORK_LENGTH, what: 'a CNI network name' },
  handle: { max: MAX_HANDLE_LENGTH, what: "an allocation's handle (CNI container id and interface)" },
  claim: { max: MAX_CLAIM_NAME_LENGTH, what: 'a claim name (letters, digits and `._:/-`)' },
  uid: { max: 128, what: "a pod's uid" },
  owner: { max: 32, what: "an allocation's owner (`pod`, `external`)" },
  address: { max: 100, what: 'an address, a CIDR or a range of two addresses' },
  labelKey: { max: LABEL_KEY_MAX_LENGTH, what: 'a label key (a 253-character prefix, `/` and a 63-character name)' },
  labelValue: { max: LABEL_VALUE_MAX_LENGTH, what: 'a label value' },
  selector: { max: MAX_SELECTOR_LENGTH, what: 'a label selector (and at most 64 requirements)' },
  token: { max: 2048, what: 'a `continue` token or the events cursor `after`' },
  streamId: { max: 512, what: "an event stream's id" },
  eventType: { max: 128, what: "an event's type" },
} as const satisfies Record<string, { max: number; what: string }>;

export type TextKind = keyof typeof TEXT_KINDS;

/** The bounds of every input the API takes, in one place: each kind of text (TEXT_KINDS) and each count. */
export const LIMITS = {
  ...(Object.fromEntries(Object.entries(TEXT_KINDS).map(([kind, { max }]) => [kind, max])) as { [K in TextKind]: number }),
  labels: MAX_LABELS,
  /** entries of `reserved` */
  reserved: 1024,
  /** a pool's reuseDelaySeconds */
  reuseDelaySeconds: MAX_REUSE_DELAY_SECONDS,
  /** names in an allocation's `pools` */
  pools: 100,
  /** any path parameter, before its route's own check (a guard for routes of plugins too) */
  pathParam: 1024,
} as const;

/** The OpenAPI schema of a kind of text: its limit, and its kind as `x-kind` (an OpenAPI extension). */
const textSchema = (kind: TextKind) => ({ type: 'string', maxLength: LIMITS[kind], 'x-kind': kind });

/**
 * The one validator of a kind of text: a string of at most its limit, documented as such (and
 * with `x-kind`, so a test finds every place a kind is taken). Presence is the field's own matter
 * (OptionalField in a body, IsOptional in a query).
 */
export const TextOf = (kind: TextKind, doc: ApiPropertyOptions = {}): PropertyDecorator =>
  applyDecorators(ApiProperty({ ...doc, ...textSchema(kind) } as ApiPropertyOptions), IsString(), MaxLength(LIMITS[kind]));

/** A list of texts of one kind, at most `items` of them. */
export const TextsOf = (kind: TextKind, items: number, doc: ApiPropertyOptions = {}): PropertyDecorator =>
  applyDecorators(
    ApiProperty({ ...doc, type: 'array', items: textSchema(kind), maxItems: items } as ApiPropertyOptions),
    IsArray(),
    ArrayMaxSize(items),
    IsString({ each: true }),
    MaxLength(LIMITS[kind], { each: true }),
  );
