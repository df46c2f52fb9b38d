import { CNI_CODES, CniError } from './cni-error';

export const CNI_COMMANDS = ['ADD', 'DEL', 'CHECK', 'VERSION', 'STATUS', 'GC'] as const;
export type CniCommand = (typeof CNI_COMMANDS)[number];

/** Who the attachment is for, from CNI_ARGS (kubelet's K8S_POD_* keys). */
export interface PodRef {
  namespace: string;
  pod: string;
  podUid?: string;
}

const badEnvironment = (message: string) => new CniError(CNI_CODES.BAD_ENVIRONMENT, message);

export function cniCommand(env: NodeJS.ProcessEnv): CniCommand {
  const command = env.CNI_COMMAND;
  if (!(CNI_COMMANDS as readonly (string | undefined)[]).includes(command)) {
    throw badEnvironment(`CNI_COMMAND must be one of ${CNI_COMMANDS.join(', ')} (got ${JSON.stringify(command ?? null)})`);
  }
  return command as CniCommand;
}

/** CNI_ARGS: `KEY=VALUE` pairs separated by ";". A pair without "=" is malformed (code 4); unknown keys are kept, and ignored. */
export function parseCniArgs(text: string | undefined): Map<string, string> {
  const args = new Map<string, string>();
  for (const pair of (text ?? '').split(';')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw badEnvironment(`CNI_ARGS: "${pair}" is not KEY=VALUE`);
    args.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return args;
}

export function podFromArgs(args: Map<string, string>): PodRef {
  const namespace = args.get('K8S_POD_NAMESPACE');
  const pod = args.get('K8S_POD_NAME');
  if (!namespace || !pod) throw badEnvironment('CNI_ARGS must carry K8S_POD_NAMESPACE and K8S_POD_NAME');
  const podUid = args.get('K8S_POD_UID');
  return podUid ? { namespace, pod, podUid } : { namespace, pod };
}

/** The attachment's handle: `<CNI_CONTAINERID>:<CNI_IFNAME>`, as every call for it names it. */
export function handleOf(env: NodeJS.ProcessEnv): string {
  const missing = ['CNI_CONTAINERID', 'CNI_IFNAME'].filter((key) => !env[key]);
  if (missing.length > 0) throw badEnvironment(`${missing.join(' and ')} must be set`);
  return `${env.CNI_CONTAINERID}:${env.CNI_IFNAME}`;
}
