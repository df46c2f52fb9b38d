import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { copyAtomically, readIfThere, writeAtomically } from './atomic-file';
import { caPath, tokenDir, tokenPath, type InstallerSettings } from './installer-settings';
import { renderConflist } from './render-conflist';

export type InstallLog = (message: string) => void;

/**
 * Configures one node for ipledger-ipam, once a round: the plugin into the CNI bin dir, the token
 * (a projected one as kubelet last renewed it) into `<conf dir>/ipledger/token` (0600 in a 0700
 * folder) and, unless chained, the conflist rendered from the template. Every file only when it
 * changed, and atomically.
 */
export class NodeInstaller {
  constructor(
    private readonly settings: InstallerSettings,
    private readonly log: InstallLog,
  ) {}

  get conflistPath(): string {
    return join(this.settings.netDir, this.settings.conflistName);
  }

  install(): void {
    const { settings } = this;
    mkdirSync(settings.binDir, { recursive: true });
    if (copyAtomically(settings.plugin, join(settings.binDir, 'ipledger-ipam'), 0o755)) {
      this.log(`installed ${join(settings.binDir, 'ipledger-ipam')}`);
    }
    if (settings.tokenSource || settings.caSource) {
      mkdirSync(tokenDir(settings.netDir), { recursive: true, mode: 0o700 });
      chmodSync(tokenDir(settings.netDir), 0o700);
    }
    if (settings.tokenSource && writeAtomically(tokenPath(settings.netDir), readFileSync(settings.tokenSource), 0o600)) {
      this.log(`installed the token ${tokenPath(settings.netDir)}`);
    }
    if (settings.caSource && writeAtomically(caPath(settings.netDir), readFileSync(settings.caSource), 0o644)) {
      this.log(`installed the API's CA ${caPath(settings.netDir)}`);
    }
    if (settings.mode === 'chained') return;
    mkdirSync(settings.netDir, { recursive: true });
    if (writeAtomically(this.conflistPath, this.conflist(), 0o644)) {
      this.log(`wrote ${this.conflistPath} for node ${settings.nodeName}, API ${settings.apiUrl}`);
    }
  }

  /**
   * The explicit uninstall (IPAM_CNI_UNINSTALL=true; docs/kubernetes.md, "Uninstall"), never a
   * pod's stop: removing the conflist at every stop would leave each node without a CNI config,
   * and so NotReady, for the seconds between two pods of a rolling update. The conflist goes first,
   * so no new pod calls a plugin about to go, and only while it is what this installer writes (not
   * one someone has put in its place); then the token and CA folder, then the plugin.
   */
  uninstall(): void {
    const { settings } = this;
    if (settings.mode === 'conflist') {
      const there = readIfThere(this.conflistPath)?.toString('utf8');
      if (there === this.conflist()) {
        rmSync(this.conflistPath, { force: true });
        this.log(`removed ${this.conflistPath}`);
      } else if (there !== undefined) {
        this.log(`left ${this.conflistPath}: it is not what this installer writes (replaced or edited since)`);
      }
    }
    rmSync(tokenDir(settings.netDir), { recursive: true, force: true });
    rmSync(join(settings.binDir, 'ipledger-ipam'), { force: true });
    this.log(`removed ${tokenDir(settings.netDir)} and ${join(settings.binDir, 'ipledger-ipam')}`);
  }

  /** The node's conflist: the template, read anew, with this node's values. */
  private conflist(): string {
    const { settings } = this;
    return renderConflist(readFileSync(settings.template, 'utf8'), {
      nodeName: settings.nodeName,
      apiUrl: settings.apiUrl,
      ...(settings.tokenSource ? { tokenFile: tokenPath(settings.hostNetDir) } : {}),
      ...(settings.caSource ? { caFile: caPath(settings.hostNetDir) } : {}),
      ...(settings.tlsServerName ? { tlsServerName: settings.tlsServerName } : {}),
      ...(settings.cluster ? { cluster: settings.cluster } : {}),
      ...(settings.matchLabel ? { matchLabel: settings.matchLabel } : {}),
    });
  }
}
