import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiProcess, type ApiProcess, type ApiProcessOptions } from './api-process';
import { startFakeKubeApi, type FakeKubeApi, type FakeKubeApiOptions } from './fake-kube-api';
import { createTestBus, type TestBus } from './test-bus';
import { createTestDatabase, type TestDatabase } from './test-database';
import { startWatcherProcess, type WatcherProcess } from './watcher-process';

/** What a cluster runs around ipledger: the fake Kubernetes API, this suite's stream and database, the API and the watcher as processes. */
export interface KubernetesStack {
  kube: FakeKubeApi;
  bus: TestBus;
  db: TestDatabase;
  api: ApiProcess;
  watcher: WatcherProcess;
  /** what the API's consumer recorded for the object (`seen`, `held ...`, a refusal), undefined before it applied any message of it */
  objectStatus(kind: string, key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface KubernetesStackOptions {
  kube?: FakeKubeApiOptions;
  /** how the API runs; the bus's variables come first, so `api.env` may override them */
  api: ApiProcessOptions;
  /** the watcher's settings beyond the bus and the kubeconfig */
  watcherEnv?: NodeJS.ProcessEnv;
  /** runs once the API serves and before the watcher starts: pools to create, objects the first list must see */
  beforeWatcher?(stack: Omit<KubernetesStack, 'watcher'>): Promise<void> | void;
}

/**
 * Starts the pieces in order, the watcher last. A piece that fails to start stops the ones before
 * it, so a failed beforeAll leaves no process, stream or database behind.
 */
export async function startKubernetesStack(suite: string, options: KubernetesStackOptions): Promise<KubernetesStack> {
  const dir = mkdtempSync(join(tmpdir(), `${suite}-`));
  // in the order they started; close stops them in reverse
  const started: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const piece of started.reverse()) await piece.close();
    started.length = 0;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const kube = await startFakeKubeApi(options.kube);
    started.push(kube);
    const db = await createTestDatabase(suite);
    started.push({ close: () => db.drop() });
    const bus = await createTestBus(suite);
    started.push(bus);
    const api = await startApiProcess(db.url, { ...options.api, env: { ...bus.env, ...options.api.env } });
    started.push({ close: () => api.stop() });
    const objectStatus = async (kind: string, key: string) =>
      (await db.pool.query<{ status: string }>('SELECT status FROM kubernetes_objects WHERE kind = $1 AND key = $2', [kind, key])).rows[0]
        ?.status;
    await options.beforeWatcher?.({ kube, bus, db, api, objectStatus, close });
    const watcher = await startWatcherProcess({ ...bus.env, KUBECONFIG: kube.writeKubeconfig(dir), ...options.watcherEnv });
    started.push({ close: () => watcher.stop() });
    return { kube, bus, db, api, watcher, objectStatus, close };
  } catch (err) {
    await close();
    throw err;
  }
}
