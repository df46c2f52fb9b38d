import { createLog, logFormat } from '@ipledger/runtime';
import { loadKubeConnection } from '@ipledger/kube';
import { Watcher } from './watcher';
import { loadWatcherConfig } from './watcher-config';

const log = createLog({ format: logFormat() }, { context: 'watcher' });
const logger = { log: (line: string) => log.info(line), warn: (line: string) => log.warn(line) };
// a stop held up (a publish never acknowledged, a list page that never ends) must not outlive the
// pod's grace period (30 s): exiting loses nothing, the next watcher lists every object again
const STOP_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
  const watcher = new Watcher(loadWatcherConfig(), loadKubeConnection(), logger);
  await watcher.start();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal}: stopping`);
      setTimeout(() => {
        logger.warn(`not stopped ${STOP_DEADLINE_MS / 1000} s after ${signal}: exiting`);
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      void watcher.stop().then(() => process.exit(0));
    });
  }
}

main().catch((err: Error) => {
  log.error(err.message);
  process.exit(1);
});
