import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kubernetesCel } from '../support/kubernetes-cel';

interface Validation {
  rule: string;
  message: string;
}

const crd = parse(readFileSync(join(__dirname, '../../deploy/ippool-crd.yaml'), 'utf8'));
const specSchema = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
const cel = kubernetesCel();

/** Rules with oldSelf are transition rules: the API server runs them on update only, and only where the old value exists. */
function failures(rules: Validation[] | undefined, self: unknown, oldSelf: unknown): string[] {
  return (rules ?? [])
    .filter((v) => oldSelf !== undefined || !v.rule.includes('oldSelf'))
    .filter((v) => cel(v.rule, { self, oldSelf }) !== true)
    .map((v) => v.message);
}

/** Every x-kubernetes-validations rule of spec and its fields, for a create (no old spec) or an update. */
function refusals(spec: Record<string, unknown>, old?: Record<string, unknown>): string[] {
  const fields = Object.entries(specSchema.properties as Record<string, { 'x-kubernetes-validations'?: Validation[] }>);
  return [
    ...failures(specSchema['x-kubernetes-validations'], spec, old),
    ...fields
      .filter(([name]) => spec[name] !== undefined)
      .flatMap(([name, schema]) => failures(schema['x-kubernetes-validations'], spec[name], old?.[name])),
  ];
}

/** Issue 21: the CRD's CEL rules, run by a CEL evaluator with Kubernetes' IP and CIDR library. */
describe('IPPool CRD: its x-kubernetes-validations rules, run', () => {
  const GATEWAY_IMMUTABLE = 'gateway is immutable (it can be neither added, changed nor removed)';
  const GATEWAY_OUTSIDE = 'gateway must be an address inside cidr';
  const NOT_A_CIDR = 'cidr must be a network in CIDR notation';

  it('accepts well-formed pools on create', () => {
    for (const spec of [
      { cidr: '10.4.0.0/24', gateway: '10.4.0.1', reserved: ['10.4.0.2'] },
      { cidr: 'fd00:4::/64', gateway: 'fd00:4::1' },
      { cidr: '10.4.0.0/24' },
      { cidr: '0.0.0.0/0', gateway: '192.168.1.1' },
    ])
      expect({ spec, refused: refusals(spec) }).toEqual({ spec, refused: [] });
  });

  it('refuses on create a CIDR its pattern lets through, and a gateway outside the network or of the other family', () => {
    // each passes the field's pattern: only isCIDR refuses it (an IPv4-mapped IPv6 network, nine groups)
    expect(refusals({ cidr: '::ffff:10.0.0.0/120' })).toEqual([NOT_A_CIDR]);
    expect(refusals({ cidr: '1:2:3:4:5:6:7:8:9/64' })).toEqual([NOT_A_CIDR]);
    expect(refusals({ cidr: '10.4.0.0/24', gateway: '10.5.0.1' })).toEqual([GATEWAY_OUTSIDE]);
    expect(refusals({ cidr: '10.4.0.0/24', gateway: 'fd00::1' })).toEqual([GATEWAY_OUTSIDE]);
    expect(refusals({ cidr: 'fd00:4::/64', gateway: 'fd00:5::1' })).toEqual([GATEWAY_OUTSIDE]);
  });

  it('refuses a gateway added later, changed or removed, and a changed reserved list', () => {
    const old = { cidr: '10.4.0.0/24' };
    expect(refusals({ cidr: '10.4.0.0/24', gateway: '10.4.0.1' }, old)).toEqual([GATEWAY_IMMUTABLE]);
    const withGateway = { cidr: '10.4.0.0/24', gateway: '10.4.0.1', reserved: ['10.4.0.2'] };
    expect(refusals({ ...withGateway, gateway: '10.4.0.254' }, withGateway)).toEqual([GATEWAY_IMMUTABLE]);
    expect(refusals({ cidr: '10.4.0.0/24', reserved: ['10.4.0.2'] }, withGateway)).toEqual([GATEWAY_IMMUTABLE]);
    expect(refusals({ ...withGateway, reserved: ['10.4.0.3'] }, withGateway)).toEqual(['reserved is immutable']);
    expect(refusals({ ...withGateway, reserved: [] }, { ...withGateway, reserved: undefined })).toEqual([]);
  });

  it('refuses blockSize added later, changed or removed, and a changed blockAffinity or blockReleaseSeconds', () => {
    const BLOCK_SIZE_IMMUTABLE = 'blockSize is immutable (it can be neither added, changed nor removed)';
    const BLOCK_FIELDS_IMMUTABLE = 'blockAffinity and blockReleaseSeconds are immutable';
    const plain = { cidr: '10.4.0.0/24' };
    const blocks = { cidr: '10.4.0.0/24', blockSize: 26, blockAffinity: 'strict' };
    expect(refusals(blocks)).toEqual([]);
    expect(refusals({ ...blocks, disabled: true, cidr: '10.4.0.0/23' }, blocks)).toEqual([]);
    expect(refusals(blocks, plain)).toEqual([BLOCK_SIZE_IMMUTABLE, BLOCK_FIELDS_IMMUTABLE]);
    expect(refusals({ ...blocks, blockSize: 27 }, blocks)).toEqual([BLOCK_SIZE_IMMUTABLE]);
    expect(refusals(plain, blocks)).toEqual([BLOCK_SIZE_IMMUTABLE, BLOCK_FIELDS_IMMUTABLE]);
    expect(refusals({ ...blocks, blockAffinity: 'borrow' }, blocks)).toEqual([BLOCK_FIELDS_IMMUTABLE]);
    expect(refusals({ ...blocks, blockReleaseSeconds: 60 }, blocks)).toEqual([BLOCK_FIELDS_IMMUTABLE]);
    // the defaults spelled out are no change
    const defaults = { cidr: '10.4.0.0/24', blockSize: 26 };
    expect(refusals({ ...defaults, blockAffinity: 'borrow', blockReleaseSeconds: 300 }, defaults)).toEqual([]);
  });

  it('refuses blockAffinity or blockReleaseSeconds without blockSize', () => {
    const NEED_BLOCK_SIZE = 'blockAffinity and blockReleaseSeconds need blockSize';
    expect(refusals({ cidr: '10.4.0.0/24', blockAffinity: 'strict' })).toEqual([NEED_BLOCK_SIZE]);
    expect(refusals({ cidr: '10.4.0.0/24', blockReleaseSeconds: 0 })).toEqual([NEED_BLOCK_SIZE]);
  });

  it('lets cidr grow to a network that contains it or shrink to one inside it, and nothing else', () => {
    const old = { cidr: '10.4.0.0/24', gateway: '10.4.0.1' };
    expect(refusals({ ...old, disabled: true }, old)).toEqual([]);
    expect(refusals({ ...old, cidr: '10.4.0.0/23' }, old)).toEqual([]);
    expect(refusals({ ...old, cidr: '10.4.0.0/25' }, old)).toEqual([]);
    expect(refusals({ ...old, cidr: '10.5.0.0/24' }, old)).toEqual([
      'cidr may only grow to a network that contains it or shrink to one inside it',
      GATEWAY_OUTSIDE,
    ]);
    expect(refusals({ cidr: 'fd00:4::/48' }, { cidr: '10.4.0.0/24' })).toEqual([
      'cidr may only grow to a network that contains it or shrink to one inside it',
    ]);
  });
});
