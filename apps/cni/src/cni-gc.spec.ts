import type { ApiClient } from './api-client';
import type { NetworkConfig } from './cni-config';
import { cniGc } from './cni-gc';

describe('CNI GC', () => {
  it("releases the node's unlisted attachments, never a claim's holding `@<name>` listed under the node", async () => {
    const deleted: string[] = [];
    const api = {
      allocations: '/v1/allocations',
      request: (method: string, path: string) => {
        if (method === 'GET')
          return Promise.resolve({
            status: 200,
            body: { items: [{ handle: 'c1:eth0' }, { handle: 'c2:eth0' }, { handle: '@vm-1' }], continue: null },
          });
        deleted.push(decodeURIComponent(path.slice('/v1/allocations/'.length)));
        return Promise.resolve({ status: 204, body: null });
      },
      refusal: () => new Error('refused'),
    } as unknown as ApiClient;
    const config = {
      name: 'net',
      ipam: { node: 'worker-1' },
      validAttachments: [{ containerID: 'c1', ifname: 'eth0' }],
    } as unknown as NetworkConfig;
    expect(await cniGc(config, api)).toEqual(['c2:eth0']);
    expect(deleted).toEqual(['c2:eth0']);
  });
});
