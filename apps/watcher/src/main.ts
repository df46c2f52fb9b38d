import { createLog, logFormat } from '@ipledger/runtime';
import { loadKubeConnection } from './kube/kubeconfig';
import { Watcher } from './watcher';
import { loadWatcherConfig } from './watcher-config';

const log = createLog({ format: logFormat() }, { context: 'watcher' });
const logger = { log: (line: string) => log.info(line), warn: (line: string) => log.warn(line) };

async function main(): Promise<void> {
  const watcher = new Watcher(loadWatcherConfig(), loadKubeConnection(), logger);
  await watcher.start();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal}: stopping`);
      void watcher.stop().then(() => process.exit(0));
    });
  }
}

main().catch((err: Error) => {
  log.error(err.message);
  process.exit(1);
});
