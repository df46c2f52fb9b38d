import { proxyFromEnvironment } from './proxy-from-environment';

const PROXY = 'http://proxy.corp:3128';
const proxied = (server: string, env: NodeJS.ProcessEnv) => proxyFromEnvironment(server, env)?.url;

describe('proxyFromEnvironment', () => {
  it('takes HTTPS_PROXY for https servers and HTTP_PROXY for http ones, the uppercase name first', () => {
    const env = { HTTPS_PROXY: 'http://secure:1', https_proxy: 'http://lower:1', HTTP_PROXY: 'http://plain:1' };
    expect(proxyFromEnvironment('https://k8s.example:6443', env)).toEqual({ variable: 'HTTPS_PROXY', url: 'http://secure:1' });
    expect(proxyFromEnvironment('http://k8s.example:8080', env)).toEqual({ variable: 'HTTP_PROXY', url: 'http://plain:1' });
    expect(proxyFromEnvironment('https://k8s.example', { https_proxy: 'socks5://lower:1' })).toEqual({
      variable: 'https_proxy',
      url: 'socks5://lower:1',
    });
    // no fallback from one to the other, as in Go
    expect(proxied('https://k8s.example', { HTTP_PROXY: PROXY })).toBeUndefined();
    expect(proxied('http://k8s.example', { HTTPS_PROXY: PROXY })).toBeUndefined();
    expect(proxied('https://k8s.example', {})).toBeUndefined();
  });

  it('reads a proxy without scheme as http', () => {
    expect(proxied('https://k8s.example', { HTTPS_PROXY: 'proxy.corp:3128' })).toBe('http://proxy.corp:3128');
    expect(proxied('https://k8s.example', { HTTPS_PROXY: ' https://user:pw@proxy.corp ' })).toBe('https://user:pw@proxy.corp');
  });

  it('never proxies localhost or loopback addresses', () => {
    for (const server of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.8.0.1', 'https://[::1]:6443'])
      expect(proxied(server, { HTTPS_PROXY: PROXY })).toBeUndefined();
  });

  it.each([
    ['*', 'https://k8s.example', true],
    ['k8s.example', 'https://k8s.example', true],
    ['example', 'https://k8s.example', true],
    ['K8S.Example', 'https://k8s.example', true],
    ['xample', 'https://k8s.example', false],
    ['.example', 'https://k8s.example', true],
    ['.k8s.example', 'https://k8s.example', false],
    ['*.example', 'https://k8s.example', true],
    ['*.k8s.example', 'https://k8s.example', false],
    ['k8s.example:6443', 'https://k8s.example:6443', true],
    ['k8s.example:443', 'https://k8s.example', true],
    ['k8s.example:443', 'https://k8s.example:6443', false],
    ['10.0.0.1', 'https://10.0.0.1:6443', true],
    ['10.0.0.1:6443', 'https://10.0.0.1:6443', true],
    ['10.0.0.1:443', 'https://10.0.0.1:6443', false],
    ['10.0.0.2', 'https://10.0.0.1', false],
    ['10.0.0.0/8', 'https://10.96.0.1', true],
    ['10.0.0.0/16', 'https://10.96.0.1', false],
    ['10.0.0.0/8', 'https://k8s.example', false],
    ['fd00::/8', 'https://[fd00::1]:6443', true],
    ['fd00::1', 'https://[fd00:0::1]', true],
    ['[fd00::1]:6443', 'https://[fd00::1]:6443', true],
    ['[fd00::1]:443', 'https://[fd00::1]:6443', false],
    [' other.example , .example ', 'https://k8s.example', true],
    [',,', 'https://k8s.example', false],
    [':443', 'https://k8s.example', false],
  ])('NO_PROXY=%j for %s bypasses the proxy: %s', (noProxy, server, bypassed) => {
    expect(proxied(server, { HTTPS_PROXY: PROXY, NO_PROXY: noProxy })).toBe(bypassed ? undefined : PROXY);
  });

  it('reads no_proxy when NO_PROXY is unset', () => {
    expect(proxied('https://k8s.example', { HTTPS_PROXY: PROXY, no_proxy: '.example' })).toBeUndefined();
    expect(proxied('https://k8s.example', { HTTPS_PROXY: PROXY, NO_PROXY: 'other', no_proxy: '.example' })).toBe(PROXY);
  });
});
