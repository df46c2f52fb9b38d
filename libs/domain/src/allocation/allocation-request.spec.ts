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
  it('passes the fields through, podUid and ip defaulting to null', () => {
    expect(parseAllocationRequest(input())).toEqual({
      handle: 'c0ffee:eth0',
      node: 'worker-1.example.com',
      namespace: 'default',
      pod: 'web-0',
      podUid: null,
      owner: 'external',
      ip: null,
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
    expect(parseAllocationRequest(input({ ip: 'FD00:0::5' })).ip).toEqual({ family: 6, value: 0xfd00n * 2n ** 112n + 5n });
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
