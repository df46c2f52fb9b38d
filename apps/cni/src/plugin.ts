import { ApiClient } from './api-client';
import { cniAdd } from './cni-add';
import { cniCheck } from './cni-check';
import { parseNetworkConfig, type NetworkConfig } from './cni-config';
import { cniDel } from './cni-del';
import { cniCommand, type CniCommand } from './cni-environment';
import { CniError } from './cni-error';
import { cniGc } from './cni-gc';
import { cniStatus } from './cni-status';
import { LATEST_VERSION, requireVersion, SUPPORTED_VERSIONS } from './cni-versions';
import { diagnostics, type Log } from './diagnostics';

export interface PluginOutcome {
  /** what goes to stdout: a result, a CNI error, or nothing */
  stdout: string;
  exitCode: 0 | 1;
}

async function dispatch(command: CniCommand, config: NetworkConfig, env: NodeJS.ProcessEnv, log: Log): Promise<object | null> {
  const api = new ApiClient(config.ipam, log);
  switch (command) {
    case 'ADD':
      return cniAdd(config, env, api);
    case 'DEL':
      await cniDel(env, api);
      return null;
    case 'CHECK':
      requireVersion(config.cniVersion, '0.4.0', 'CHECK');
      await cniCheck(config, env, api);
      return null;
    case 'STATUS':
      requireVersion(config.cniVersion, '1.1.0', 'STATUS');
      await cniStatus(api);
      return null;
    case 'GC': {
      requireVersion(config.cniVersion, '1.1.0', 'GC');
      const released = await cniGc(config, api);
      if (released.length > 0) log(`GC released ${released.length} handle(s): ${released.join(', ')}`);
      return null;
    }
    case 'VERSION':
      throw new Error('VERSION needs no config');
  }
}

/**
 * One plugin call: the CNI command from the environment, the network config from stdin. Every
 * failure becomes a CNI error on stdout with exit status 1; an unexpected one is logged with its
 * stack (to stderr or logFile), never printed to stdout.
 */
export async function runPlugin(env: NodeJS.ProcessEnv, stdin: string): Promise<PluginOutcome> {
  let cniVersion: string = LATEST_VERSION;
  let log = diagnostics(env.CNI_COMMAND ?? '-');
  try {
    const command = cniCommand(env);
    if (command === 'VERSION') {
      return { stdout: JSON.stringify({ cniVersion: LATEST_VERSION, supportedVersions: SUPPORTED_VERSIONS }), exitCode: 0 };
    }
    const config = parseNetworkConfig(stdin, env);
    cniVersion = config.cniVersion;
    log = diagnostics(`${command} ${env.CNI_CONTAINERID ?? ''}:${env.CNI_IFNAME ?? ''}`, config.ipam.logFile);
    const result = await dispatch(command, config, env, log);
    return { stdout: result ? JSON.stringify(result) : '', exitCode: 0 };
  } catch (err) {
    const error =
      err instanceof CniError ? err : new CniError(999, `ipledger-ipam failed unexpectedly: ${(err as Error)?.message ?? String(err)}`);
    log(err instanceof CniError ? `code ${error.code}: ${error.msg}` : `unexpected: ${(err as Error)?.stack ?? String(err)}`);
    return {
      stdout: JSON.stringify({ cniVersion, code: error.code, msg: error.msg, details: error.details }),
      exitCode: 1,
    };
  }
}
