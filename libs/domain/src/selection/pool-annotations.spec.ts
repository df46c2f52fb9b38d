import { DomainError } from '../errors/domain-error';
import { ANNOTATION_LIMITS, parsePoolAnnotations, POOL_ANNOTATIONS } from './pool-annotations';
import { chooseSelection, type PoolAnnotations } from './selection-rule';

const WHAT = 'pod shop/web-1';

function refusal(annotations: Record<string, unknown>): DomainError {
  try {
    parsePoolAnnotations(annotations, WHAT);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

const networks = (value: unknown) => ({ [POOL_ANNOTATIONS.networks]: typeof value === 'string' ? value : JSON.stringify(value) });

describe('parsePoolAnnotations', () => {
  it('reads nothing from an object without pool annotations, and ignores the others', () => {
    expect(parsePoolAnnotations(undefined, WHAT)).toEqual({ rule: null, families: null, networks: new Map() });
    expect(parsePoolAnnotations({ 'ipam.ipledger.io/ip-set': '3', 'other.io/x': 'y' }, WHAT)).toEqual({
      rule: null,
      families: null,
      networks: new Map(),
    });
  });

  it('pools: comma-separated, in order, spaces allowed, duplicates dropped', () => {
    expect(parsePoolAnnotations({ [POOL_ANNOTATIONS.pools]: 'b, a,b' }, WHAT).rule).toEqual({ kind: 'pools', names: ['b', 'a'] });
  });

  it('pool-selector and match-label', () => {
    const selector = parsePoolAnnotations({ [POOL_ANNOTATIONS.poolSelector]: 'tier in (gold)' }, WHAT).rule;
    expect(selector?.kind === 'poolSelector' && selector.selector.toString()).toBe('tier in (gold)');
    expect(parsePoolAnnotations({ [POOL_ANNOTATIONS.matchLabel]: 'rack' }, WHAT).rule).toEqual({ kind: 'matchLabel', key: 'rack' });
  });

  it.each([
    ['4', [4]],
    ['6', [6]],
    ['4,6', [4, 6]],
    [' 4, 6 ', [4, 6]],
  ])('families %j', (value, families) => {
    expect(parsePoolAnnotations({ [POOL_ANNOTATIONS.families]: value }, WHAT).families).toEqual(families);
  });

  it('networks: one rule per CNI network name', () => {
    const parsed = parsePoolAnnotations(
      networks([
        { network: 'storage', pools: ['san-a'] },
        { network: 'default', matchLabel: 'rack' },
      ]),
      WHAT,
    );
    expect(parsed.networks.get('storage')).toEqual({ kind: 'pools', names: ['san-a'] });
    expect(parsed.networks.get('default')).toEqual({ kind: 'matchLabel', key: 'rack' });
  });

  it.each([
    [
      'two rules on one object',
      { [POOL_ANNOTATIONS.pools]: 'a', [POOL_ANNOTATIONS.matchLabel]: 'rack' },
      'give at most one of pools, pool-selector, match-label',
    ],
    ['an empty pool name', { [POOL_ANNOTATIONS.pools]: 'a,,b' }, 'empty pool name'],
    ['a bad pool name', { [POOL_ANNOTATIONS.pools]: 'Not_OK' }, 'pool name'],
    [
      'too many pools',
      { [POOL_ANNOTATIONS.pools]: Array.from({ length: ANNOTATION_LIMITS.pools + 1 }, (_, i) => `p${i}`).join(',') },
      'more than 100 pools',
    ],
    ['too long a value', { [POOL_ANNOTATIONS.poolSelector]: `a=${'b'.repeat(ANNOTATION_LIMITS.value)}` }, 'longer than 4096'],
    ['a value that is no string', { [POOL_ANNOTATIONS.pools]: 3 }, 'not a string'],
    ['a bad selector', { [POOL_ANNOTATIONS.poolSelector]: 'tier in (' }, 'pool-selector'],
    ['a bad label key', { [POOL_ANNOTATIONS.matchLabel]: '-rack' }, 'match-label'],
    ['families 5', { [POOL_ANNOTATIONS.families]: '5' }, 'must be 4, 6 or 4,6'],
    ['families 6,4,6', { [POOL_ANNOTATIONS.families]: '6,4,6' }, 'must be 4, 6 or 4,6'],
    ['networks not JSON', networks('[{'), 'not JSON'],
    ['networks not a list', networks({ network: 'a', pools: ['x'] }), 'JSON list'],
    ['a network entry that is no object', networks(['a']), 'entry 0 is not an object'],
    ['an unknown field', networks([{ network: 'a', pools: ['x'], __proto__x: 1 }]), 'unknown field'],
    ['a bad network name', networks([{ network: '-a', pools: ['x'] }]), 'CNI network name'],
    [
      'a network twice',
      networks([
        { network: 'a', pools: ['x'] },
        { network: 'a', pools: ['y'] },
      ]),
      'listed twice',
    ],
    ['an entry without a rule', networks([{ network: 'a' }]), 'gives none of'],
    ['pools that are not names', networks([{ network: 'a', pools: 'x' }]), 'pools must be a list'],
    ['two rules in an entry', networks([{ network: 'a', pools: ['x'], matchLabel: 'rack' }]), 'network "a": give at most one'],
    ['nesting past the limit', networks([{ network: 'a', pools: [['x']] }]), 'nested deeper than 3'],
    ['too many entries', networks(Array.from({ length: 33 }, (_, i) => ({ network: `n${i}`, pools: ['x'] }))), 'more than 32 entries'],
    ['too long networks', networks(`[${' '.repeat(ANNOTATION_LIMITS.networks)}]`), 'longer than 16384'],
  ])('refuses %s with INVALID_ANNOTATION naming the object and the annotation', (_case, annotations, reason) => {
    const error = refusal(annotations);
    expect(error.code).toBe('INVALID_ANNOTATION');
    expect(error.message).toContain(`${WHAT}: annotation ipam.ipledger.io/`);
    expect(error.message).toContain(reason);
  });
});

describe('chooseSelection: pod, then namespace, then the request, then the server default', () => {
  const annotated = (annotations: Record<string, string>): PoolAnnotations => parsePoolAnnotations(annotations, WHAT);
  const pod = annotated({ [POOL_ANNOTATIONS.pools]: 'pod-pool', [POOL_ANNOTATIONS.families]: '6' });
  const namespace = annotated({
    [POOL_ANNOTATIONS.pools]: 'ns-pool',
    [POOL_ANNOTATIONS.families]: '4,6',
    ...networks([{ network: 'storage', pools: ['san-a'] }]),
  });
  const none = annotated({});

  it('the pod annotation wins over the namespace, the request and the default', () => {
    expect(chooseSelection({ matchLabel: 'rack' }, { pod, namespace }, 'group')).toEqual({
      rule: { kind: 'pools', names: ['pod-pool'] },
      source: 'pod-annotation',
      families: [6],
    });
  });

  it('the namespace annotation wins over the request', () => {
    expect(chooseSelection({ matchLabel: 'rack' }, { pod: none, namespace }, 'group')).toEqual({
      rule: { kind: 'pools', names: ['ns-pool'] },
      source: 'namespace-annotation',
      families: [4, 6],
    });
  });

  it("the network's entry applies to its network only", () => {
    expect(chooseSelection({ network: 'storage' }, { pod: null, namespace }, null).rule).toEqual({ kind: 'pools', names: ['san-a'] });
    expect(chooseSelection({ network: 'other' }, { pod: null, namespace }, null).rule).toEqual({ kind: 'pools', names: ['ns-pool'] });
    // the pod's plain annotation still wins over the namespace's network entry
    expect(chooseSelection({ network: 'storage' }, { pod, namespace }, null).source).toBe('pod-annotation');
  });

  it('without annotations: the request, else the server default', () => {
    expect(chooseSelection({ matchLabel: 'rack' }, { pod: none, namespace: none }, 'group')).toEqual({
      rule: { kind: 'matchLabel', key: 'rack' },
      source: 'request',
      families: null,
    });
    expect(chooseSelection({}, null, 'group')).toEqual({
      rule: { kind: 'matchLabel', key: 'group' },
      source: 'server-default',
      families: null,
    });
    expect(chooseSelection({}, null, null)).toEqual({ rule: { kind: 'all' }, source: 'server-default', families: null });
  });

  it("a pod's families alone leave the choice of pools to the next level", () => {
    const familiesOnly = annotated({ [POOL_ANNOTATIONS.families]: '4,6' });
    expect(chooseSelection({ pools: ['req'] }, { pod: familiesOnly, namespace: none }, null)).toEqual({
      rule: { kind: 'pools', names: ['req'] },
      source: 'request',
      families: [4, 6],
    });
  });

  it('a malformed request is refused even when an annotation wins', () => {
    expect(() => chooseSelection({ pools: ['a'], matchLabel: 'b' }, { pod, namespace }, null)).toThrow(DomainError);
  });
});
