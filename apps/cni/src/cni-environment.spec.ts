import { cniCommand, handleOf, parseCniArgs, podFromArgs } from './cni-environment';
import { CniError } from './cni-error';

describe('CNI environment', () => {
  it('reads CNI_ARGS pairs, keeping "=" inside values and ignoring empty pairs', () => {
    const args = parseCniArgs('IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-2;K8S_POD_UID=u-1;X=a=b;');
    expect(podFromArgs(args)).toEqual({ namespace: 'default', pod: 'web-2', podUid: 'u-1' });
    expect(args.get('X')).toBe('a=b');
    expect(podFromArgs(parseCniArgs('K8S_POD_NAMESPACE=ns;K8S_POD_NAME=p'))).toEqual({ namespace: 'ns', pod: 'p' });
  });

  it.each([
    ['a pair without "="', () => parseCniArgs('K8S_POD_NAME')],
    ['no pod name', () => podFromArgs(parseCniArgs('K8S_POD_NAMESPACE=ns'))],
    ['no CNI_ARGS at all', () => podFromArgs(parseCniArgs(undefined))],
    ['no CNI_IFNAME', () => handleOf({ CNI_CONTAINERID: 'c' })],
    ['an unknown CNI_COMMAND', () => cniCommand({ CNI_COMMAND: 'UPDATE' })],
  ])('refuses %s with code 4', (_, fn) => {
    expect(fn).toThrow(expect.objectContaining({ code: 4 }) as CniError);
  });

  it('names the attachment <CNI_CONTAINERID>:<CNI_IFNAME>', () => {
    expect(handleOf({ CNI_CONTAINERID: 'abc123', CNI_IFNAME: 'net1' })).toBe('abc123:net1');
  });
});
