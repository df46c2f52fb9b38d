import { loadKubeConnection } from './kube/kubeconfig';
import { Watcher } from './watcher';
import { loadWatcherConfig } from './watcher-config';

const logger = {
  log: (line: string) => console.log(`${new Date().toISOString()} ${line}`),
  warn: (line: string) => console.warn(`${new Date().toISOString()} WARN ${line}`),
};

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
  console.error(err.message);
  process.exit(1);
});
