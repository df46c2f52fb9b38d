import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installerSettings } from './installer-settings';
import { NodeInstaller } from './node-installer';

/**
 * install-cni (dist/cni/install-cni.js, the container of the ipledger-cni DaemonSet): configures
 * its node, then again every IPAM_CNI_INTERVAL_SECONDS (a new image, a rotated token, an edited
 * template reach the node without a restart); on SIGTERM (the pod's stop) it removes the conflist
 * it wrote and exits. The readiness probe's file exists once a round succeeded.
 */
const READY_FILE = join(tmpdir(), 'ipledger-cni-installed');
const log = (message: string) => process.stdout.write(`${new Date().toISOString()} install-cni: ${message}\n`);

function main(): void {
  const settings = installerSettings(process.env, __dirname);
  const installer = new NodeInstaller(settings, log);
  const install = () => {
    installer.install();
    writeFileSync(READY_FILE, new Date().toISOString());
  };
  // later rounds keep trying; the first one (below) must work: a wrong template or setting shows as a crash-looping pod
  const timer = setInterval(() => {
    try {
      install();
    } catch (err) {
      log(`round failed, next in ${settings.intervalSeconds} s: ${(err as Error).message}`);
    }
  }, settings.intervalSeconds * 1000);
  // before the first round: a SIGTERM that comes before node listens for it ends the process at once, conflist left behind
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      clearInterval(timer);
      installer.uninstall();
      rmSync(READY_FILE, { force: true });
      process.exit(0);
    });
  }
  install();
  log(`installed (${settings.mode}); again every ${settings.intervalSeconds} s`);
}

try {
  main();
} catch (err) {
  log(`cannot configure this node: ${(err as Error).message}`);
  process.exit(1);
}
