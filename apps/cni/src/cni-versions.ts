import { CNI_CODES, CniError } from './cni-error';

/** The specification versions this plugin speaks, oldest first; the last is what VERSION reports itself as. */
export const SUPPORTED_VERSIONS = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;
export type CniVersion = (typeof SUPPORTED_VERSIONS)[number];
export const LATEST_VERSION: CniVersion = '1.1.0';

export function supportedVersion(text: unknown): CniVersion {
  if (typeof text !== 'string' || !(SUPPORTED_VERSIONS as readonly string[]).includes(text)) {
    throw new CniError(
      CNI_CODES.INCOMPATIBLE_VERSION,
      `incompatible CNI versions: config is ${JSON.stringify(text)}, plugin supports ${SUPPORTED_VERSIONS.join(', ')}`,
    );
  }
  return text as CniVersion;
}

/** Whether a config of version `version` may use a verb introduced in `since`, as libcni's skel decides. */
export function requireVersion(version: CniVersion, since: CniVersion, command: string): void {
  if (SUPPORTED_VERSIONS.indexOf(version) < SUPPORTED_VERSIONS.indexOf(since)) {
    throw new CniError(CNI_CODES.INCOMPATIBLE_VERSION, `config version ${version} does not allow ${command} (needs ${since} or later)`);
  }
}
