import { KUBE_KINDS, type KubeKind } from './kube-kind';

/** The JetStream stream and the subject namespace it captures (`<prefix>.>`). */
export interface StreamNames {
  stream: string;
  subjectPrefix: string;
}

export const DEFAULT_STREAM_NAMES: StreamNames = { stream: 'IPLEDGER_KUBERNETES', subjectPrefix: 'ipledger.kubernetes' };

/** One subject per kind for object changes (`ipledger.kubernetes.pod`), one beside it for sync markers. */
export const changeSubject = (names: StreamNames, kind: KubeKind) => `${names.subjectPrefix}.${kind}`;
export const syncSubject = (names: StreamNames, kind: KubeKind) => `${names.subjectPrefix}.${kind}.sync`;

export function parseSubject(names: StreamNames, subject: string): { kind: KubeKind; sync: boolean } | null {
  if (!subject.startsWith(`${names.subjectPrefix}.`)) return null;
  const [kind, sync, ...rest] = subject.slice(names.subjectPrefix.length + 1).split('.');
  if (!KUBE_KINDS.includes(kind as KubeKind) || rest.length || (sync !== undefined && sync !== 'sync')) return null;
  return { kind: kind as KubeKind, sync: sync === 'sync' };
}
