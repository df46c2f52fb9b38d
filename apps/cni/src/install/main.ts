import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installerSettings } from './installer-settings';
import { NodeInstaller } from './node-installer';

/**
 * install-cni (dist/cni/install-cni.js, the container of the ipledger-cni DaemonSet): configures
 * its node, then again every IPAM_CNI_INTERVAL_SECONDS (a new image, a rotated token, an edited
 * template reach the node without a restart). Its stop leaves the node as it is: the next pod of a
 * rolling update takes over, and pods keep starting meanwhile. With IPAM_CNI_UNINSTALL=true it
 * removes what it installed instead, once, and stays (ready) until the DaemonSet is deleted. The
 * readiness probe's file exists once a round (or the uninstall) succeeded.
 */
const READY_FILE = join(tmpdir(), 'ipledger-cni-installed');
const log = (message: string) => process.stdout.write(`${new Date().toISOString()} install-cni: ${message}\n`);

function main(): void {
  const settings = installerSettings(process.env, __dirname);
  const installer = new NodeInstaller(settings, log);
  const ready = () => writeFileSync(READY_FILE, new Date().toISOString());
  // the first round must work (below): a wrong template or setting shows as a crash-looping pod; later ones keep trying
  const timer = settings.uninstall
    ? // nothing to repeat: an idle timer keeps the process (and the pod) up until it is stopped
      setInterval(() => undefined, 2 ** 31 - 1)
    : setInterval(() => {
        try {
          installer.install();
          ready();
        } catch (err) {
          log(`round failed, next in ${settings.intervalSeconds} s: ${(err as Error).message}`);
        }
      }, settings.intervalSeconds * 1000);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      clearInterval(timer);
      rmSync(READY_FILE, { force: true });
      process.exit(0);
    });
  }
  if (settings.uninstall) {
    installer.uninstall();
    ready();
    log('uninstalled from this node (IPAM_CNI_UNINSTALL=true); delete the DaemonSet once every node is done');
    return;
  }
  installer.install();
  ready();
  log(`installed (${settings.mode}); again every ${settings.intervalSeconds} s`);
}

try {
  main();
} catch (err) {
  log(`cannot configure this node: ${(err as Error).message}`);
  process.exit(1);
}
