import type { KubeObject } from '../kube-object';
import { ipamAnnotations, isRecord, pick, trimmed } from './object-meta.transform';

/**
 * A StatefulSet: its size and first ordinal (the range it reserves) and of its pod template only
 * what chooses a pool: the nodeSelector, the labels and ipledger's annotations. The template's
 * containers (env values, images), volumes and claim templates stay behind.
 */
export function trimStatefulSet(object: KubeObject): KubeObject {
  const spec = pick<Record<string, unknown>>(object.spec, ['replicas']) ?? {};
  const ordinals = pick(object.spec?.ordinals, ['start']);
  if (ordinals) spec.ordinals = ordinals;
  const template = object.spec?.template;
  if (isRecord(template)) {
    const metadata = pick<Record<string, unknown>>(template.metadata, ['labels']) ?? {};
    const annotations = isRecord(template.metadata) ? ipamAnnotations(template.metadata.annotations) : undefined;
    if (annotations) metadata.annotations = annotations;
    const podSpec = pick<Record<string, unknown>>(template.spec, ['nodeSelector']);
    spec.template = {
      ...(Object.keys(metadata).length ? { metadata } : {}),
      ...(podSpec && Object.keys(podSpec).length ? { spec: podSpec } : {}),
    };
  }
  return trimmed(object, spec);
}
