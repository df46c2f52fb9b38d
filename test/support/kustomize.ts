import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object, loosely typed: the tests read what they check. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  [field: string]: any;
}

/** The objects of a YAML stream; a document that does not parse is an error naming it. */
export function yamlObjects(text: string): KubeObject[] {
  return parseAllDocuments(text).map((doc, i) => {
    if (doc.errors.length) throw new Error(`YAML document ${i + 1} does not parse: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as KubeObject;
  });
}

/** `kubectl kustomize <dir>` (offline): the objects it renders. */
export function renderKustomization(dir: string): KubeObject[] {
  const kubectl = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (kubectl.error) {
    throw new Error(
      'this test renders deploy/ with `kubectl kustomize` and kubectl is not on PATH: install the Debian package `kubectl` (apt-get install kubectl)',
    );
  }
  if (kubectl.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${kubectl.stderr}`);
  return yamlObjects(kubectl.stdout);
}
