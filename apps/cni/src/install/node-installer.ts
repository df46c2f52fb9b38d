import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { copyAtomically, readIfThere, writeAtomically } from './atomic-file';
import { caPath, tokenDir, tokenPath, type InstallerSettings } from './installer-settings';
import { renderConflist } from './render-conflist';

export type InstallLog = (message: string) => void;

/**
 * Configures one node for ipledger-ipam, once a round: the plugin into the CNI bin dir, the
 * allocator token into `<conf dir>/ipledger/token` (0600 in a 0700 folder) and, unless chained, the
 * conflist rendered from the template. Every file only when it changed, and atomically.
 */
export class NodeInstaller {
  /** the conflist as this installer last wrote it: removed at stop only while it is still that */
  private written: string | null = null;

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
    const conflist = renderConflist(readFileSync(settings.template, 'utf8'), {
      nodeName: settings.nodeName,
      apiUrl: settings.apiUrl,
      ...(settings.tokenSource ? { tokenFile: tokenPath(settings.hostNetDir) } : {}),
      ...(settings.caSource ? { caFile: caPath(settings.hostNetDir) } : {}),
      ...(settings.tlsServerName ? { tlsServerName: settings.tlsServerName } : {}),
    });
    mkdirSync(settings.netDir, { recursive: true });
    if (writeAtomically(this.conflistPath, conflist, 0o644)) {
      this.log(`wrote ${this.conflistPath} for node ${settings.nodeName}, API ${settings.apiUrl}`);
    }
    this.written = conflist;
  }

  /**
   * At stop: the conflist goes, as Cilium's cni-uninstall.sh does, so the node reports its network
   * not ready rather than starting pods that nothing serves. Not when someone replaced it since;
   * the plugin and the token stay, as the DEL of the pods still there needs them.
   */
  uninstall(): void {
    if (this.written === null) return;
    if (readIfThere(this.conflistPath)?.toString('utf8') === this.written) {
      rmSync(this.conflistPath, { force: true });
      this.log(`removed ${this.conflistPath}`);
    }
    this.written = null;
  }
}
