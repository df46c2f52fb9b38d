import { RetentionPolicy, StorageType, nanos, type JetStreamManager } from 'nats';
import type { StreamNames } from './subjects';

const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;

/**
 * Creates the stream when it is missing. File storage: an acknowledged publish survives a NATS
 * restart; with `replicas` 3 (IPAM_NATS_REPLICAS, a NATS cluster) it also survives losing a node.
 * Old messages age out; a consumer that was away longer is healed by the next sync. Returns whether
 * it made the stream: both the API and the watcher call it again when the stream may have been
 * lost under them (NATS restarted without its store, an operator deleted it).
 */
export async function ensureStream(jsm: JetStreamManager, names: StreamNames, maxAgeSeconds: number, replicas = 1): Promise<boolean> {
  const exists = await jsm.streams.info(names.stream).then(
    () => true,
    (err: Error & { code?: string }) => {
      if (err.code === '404' || /stream not found/i.test(err.message)) return false;
      throw err;
    },
  );
  if (exists) return false;
  await jsm.streams.add({
    name: names.stream,
    subjects: [`${names.subjectPrefix}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(maxAgeSeconds * 1000),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: replicas,
  });
  return true;
}
