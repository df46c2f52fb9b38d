import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { IPPOOL_SPEC_FIELDS, KUBE_KINDS, KUBE_RESOURCE_PATHS } from '@ipledger/messaging';

const documents = (file: string) =>
  parseAllDocuments(readFileSync(join(__dirname, '../../../deploy', file), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS();
  });

/** The manifests must let the watcher read exactly what it lists and watches. */
describe('deploy/ manifests', () => {
  it('define the IPPool resource at the path the watcher watches, with the spec the consumer reads', () => {
    const [crd] = documents('ippool-crd.yaml');
    expect(crd).toMatchObject({ kind: 'CustomResourceDefinition', metadata: { name: 'ippools.ipam.ipledger.io' } });
    const { group, scope, names, versions } = crd.spec;
    expect(`/apis/${group}/${versions[0].name}/${names.plural}`).toBe(KUBE_RESOURCE_PATHS.ippool);
    expect(scope).toBe('Cluster');
    const spec = versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec.required).toEqual(['cidr']);
    // a field of the CRD that the watcher's transform drops would never reach the pool
    expect(Object.keys(spec.properties).sort()).toEqual([...IPPOOL_SPEC_FIELDS].sort());
  });

  it("grant the watcher get, list and watch on every kind it follows, patch on the IPPools' status, and nothing more", () => {
    const docs = documents('watcher-rbac.yaml');
    const role = docs.find((d) => d.kind === 'ClusterRole');
    const binding = docs.find((d) => d.kind === 'ClusterRoleBinding');
    const account = docs.find((d) => d.kind === 'ServiceAccount');
    expect(binding.roleRef.name).toBe(role.metadata.name);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace }]);
    const rules = role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    const reads = rules.filter((rule) => rule.verbs.join() === 'get,list,watch');
    expect(rules.filter((rule) => !reads.includes(rule))).toEqual([
      { apiGroups: ['ipam.ipledger.io'], resources: ['ippools/status'], verbs: ['patch'] },
    ]);
    const granted = reads.flatMap((rule) => rule.apiGroups.flatMap((group) => rule.resources.map((resource) => `${group}/${resource}`)));
    // /api/v1/nodes -> "/nodes" (the core group is ""), /apis/apps/v1/statefulsets -> "apps/statefulsets"
    const watched = KUBE_KINDS.map((kind) =>
      KUBE_RESOURCE_PATHS[kind].replace(/^\/api\/v1\//, '/').replace(/^\/apis\/([^/]+)\/[^/]+\//, '$1/'),
    );
    expect(granted.sort()).toEqual(watched.sort());
  });
});
