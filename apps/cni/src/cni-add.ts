import type { NetworkConfig } from './cni-config';
import { handleOf, parseCniArgs, podFromArgs } from './cni-environment';
import type { ApiClient } from './api-client';
import { ipamResult, type AllocatedAddress, type IpamResult } from './cni-result';

/**
 * ADD: allocates for the handle. The API answers a handle that already holds addresses with
 * those same addresses, so a retried ADD never takes a second one; a StatefulSet pod's ordinal
 * address is the API's decision too.
 */
export async function cniAdd(config: NetworkConfig, env: NodeJS.ProcessEnv, api: ApiClient): Promise<IpamResult> {
  const handle = handleOf(env);
  const pod = podFromArgs(parseCniArgs(env.CNI_ARGS));
  const { ipam } = config;
  const request = {
    handle,
    node: ipam.node,
    ...pod,
    // a CNI attachment is a pod's, even when the runtime passes no K8S_POD_UID: leak collection may release it
    owner: 'pod',
    network: config.name,
    ...(ipam.families ? { families: ipam.families } : {}),
    ...ipam.rule,
  };
  const answer = await api.request('POST', api.allocations, request);
  if (answer.status !== 200 && answer.status !== 201) throw api.refusal('POST', api.allocations, answer);
  const { items } = answer.body as { items: AllocatedAddress[] };
  return ipamResult(config.cniVersion, items, ipam);
}
