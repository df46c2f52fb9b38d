import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '../../..');

/** The DaemonSet installs what `npm run build` makes, where kubelet's runtime looks for it. */
describe('deploy/cni-daemonset.yaml', () => {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy/cni-daemonset.yaml'), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS();
  });
  const daemonSet = docs.find((d) => d.kind === 'DaemonSet');
  const pod = daemonSet.spec.template.spec;
  const [container] = pod.containers;
  const script: string = container.args.join('\n');
  const hostPath = (mountPath: string) => {
    const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === mountPath);
    return pod.volumes.find((v: { name: string }) => v.name === mount.name);
  };

  it('copies the built plugin into the host /opt/cni/bin', () => {
    expect(script).toContain('/app/dist/cni/ipledger-ipam /host/opt/cni/bin/ipledger-ipam 755');
    expect(hostPath('/host/opt/cni/bin').hostPath.path).toBe('/opt/cni/bin');
    expect(daemonSet.spec.selector.matchLabels).toEqual(
      expect.objectContaining({ 'app.kubernetes.io/name': daemonSet.spec.template.metadata.labels['app.kubernetes.io/name'] }),
    );
  });

  it('writes the token from its Secret where the conflist reads it, readable by root only', () => {
    expect(script).toContain('/var/run/ipledger/token /host/etc/cni/net.d/ipledger/token 600');
    expect(hostPath('/host/etc/cni/net.d').hostPath.path).toBe('/etc/cni/net.d');
    // the operator's Secret (README, Kubernetes): the base never carries a token of its own
    expect(hostPath('/var/run/ipledger').secret.secretName).toBe('ipledger-cni-token');
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
  });

  it('runs on every node', () => {
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
  });
});
