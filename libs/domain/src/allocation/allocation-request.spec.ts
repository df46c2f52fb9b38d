import type { AllocateIpInput } from '../commands/allocate-ip.command';
import { DomainError } from '../errors/domain-error';
import { MAX_HANDLE_LENGTH, parseAllocationRequest, validateHandle } from './allocation-request';

const input = (extra: Partial<AllocateIpInput> = {}): AllocateIpInput => ({
  handle: 'c0ffee:eth0',
  node: 'worker-1.example.com',
  namespace: 'default',
  pod: 'web-0',
  ...extra,
});

function refusal(extra: Partial<AllocateIpInput>): DomainError {
  try {
    parseAllocationRequest(input(extra));
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('parseAllocationRequest', () => {
  it('passes the fields through, podUid defaulting to null and ips to none', () => {
    expect(parseAllocationRequest(input())).toEqual({
      handle: 'c0ffee:eth0',
      node: 'worker-1.example.com',
      namespace: 'default',
      pod: 'web-0',
      podUid: null,
      owner: 'external',
      ips: [],
      families: [4],
    });
    expect(parseAllocationRequest(input({ podUid: 'u-1' }))).toMatchObject({ podUid: 'u-1', owner: 'pod' });
    expect(parseAllocationRequest(input({ podUid: 'u-1', owner: 'external' })).owner).toBe('external');
    expect(parseAllocationRequest(input({ owner: 'pod' })).owner).toBe('pod');
    expect(() => parseAllocationRequest(input({ owner: 'vm' }))).toThrow('owner must be one of pod, external');
  });

  it.each([
    [{}, [4]],
    [{ ip: '10.0.0.5' }, [4]],
    [{ ip: 'fd00::5' }, [6]],
    [{ families: [6] }, [6]],
    [{ families: [4, 6] }, [4, 6]],
    [{ families: [6, 4] }, [4, 6]],
    [{ ip: 'fd00::5', families: [6] }, [6]],
  ])('%j asks for families %j', (extra, families) => {
    expect(parseAllocationRequest(input(extra)).families).toEqual(families);
  });

  it('parses the ip', () => {
    expect(parseAllocationRequest(input({ ip: 'FD00:0::5' })).ips).toEqual([{ family: 6, value: 0xfd00n * 2n ** 112n + 5n }]);
  });

  it.each([[[5]], [[4, 4]], [[]], [[4, 6, 6]], [[0]]])('refuses families %j with INVALID_ARGUMENT', (families) => {
    const error = refusal({ families });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(`(got ${JSON.stringify(families)})`);
  });

  it.each([
    ['10.0.0.5', [6]],
    ['10.0.0.5', [4, 6]],
    ['fd00::5', [4]],
  ])('refuses ip %s with families %j', (ip, families) => {
    const error = refusal({ ip, families });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(ip);
  });

  it('takes ips, one a family, ordered by family: their families are asked for', () => {
    const spec = parseAllocationRequest(input({ ips: ['fd00::5', '10.0.0.5'] }));
    expect(spec.ips.map((ip) => ip.family)).toEqual([4, 6]);
    expect(spec.families).toEqual([4, 6]);
    expect(parseAllocationRequest(input({ ips: ['10.0.0.5', 'fd00::5'], families: [4, 6] })).families).toEqual([4, 6]);
  });

  it.each([
    [['10.0.0.5', '10.0.0.6'], 'asks for 10.0.0.5 and 10.0.0.6, 2 IPv4 addresses'],
    [['fd00::5', '10.0.0.5', 'fd00::6'], 'asks for fd00::5 and fd00::6, 2 IPv6 addresses'],
  ])('refuses ips %j, two of one family, with INVALID_ARGUMENT', (ips, message) => {
    const error = refusal({ ips });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(message);
  });

  it('refuses ips whose families the families field does not match, and ip with ips', () => {
    expect(refusal({ ips: ['10.0.0.5', 'fd00::5'], families: [4] }).message).toContain('10.0.0.5, fd00::5');
    expect(refusal({ ip: '10.0.0.5', ips: ['fd00::5'] }).message).toBe('give ip or ips, not both');
  });

  it('refuses a malformed ip with INVALID_IP', () => {
    expect(refusal({ ip: '10.0.0.256' }).code).toBe('INVALID_IP');
  });

  it.each([
    ['node', { node: 'Worker_1' }],
    ['node', { node: 'worker..1' }],
    ['node', { node: '' }],
    ['namespace', { namespace: 'kube.system' }],
    ['namespace', { namespace: 'a'.repeat(64) }],
    ['pod', { pod: 'Web-0' }],
    ['pod', { pod: '-web' }],
  ])('refuses a bad %s name with INVALID_NAME', (what, extra) => {
    const error = refusal(extra);
    expect(error.code).toBe('INVALID_NAME');
    expect(error.message).toContain(what);
  });

  it('accepts a dotted pod name and a 63-character namespace', () => {
    expect(() => parseAllocationRequest(input({ pod: 'web-0.svc', namespace: 'a'.repeat(63) }))).not.toThrow();
  });
});

describe('validateHandle', () => {
  it.each([1, MAX_HANDLE_LENGTH])('accepts %d characters', (length) => {
    expect(validateHandle('h'.repeat(length))).toBe('h'.repeat(length));
  });

  it.each([0, MAX_HANDLE_LENGTH + 1])('refuses %d characters with INVALID_ARGUMENT', (length) => {
    expect(MAX_HANDLE_LENGTH).toBe(255);
    const error = refusal({ handle: 'h'.repeat(length) });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(`handle must be 1 to 255 characters (got ${length})`);
  });
});

describe('network', () => {
  const base = { handle: 'c1:eth0', node: 'n1', namespace: 'default', pod: 'web-0' };
  it('is kept when it follows the CNI rule for network names, and absent when not given', () => {
    expect(parseAllocationRequest({ ...base, network: 'k8s-pod_network.1' }).network).toBe('k8s-pod_network.1');
    expect(parseAllocationRequest(base)).not.toHaveProperty('network');
  });
  it.each(['', '-lead', 'has space', 'x'.repeat(254)])('refuses %j', (network) => {
    expect(() => parseAllocationRequest({ ...base, network })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
