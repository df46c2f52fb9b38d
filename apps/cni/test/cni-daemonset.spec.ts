import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { installerSettings } from '../src/install/installer-settings';
import { renderConflist } from '../src/install/render-conflist';

const ROOT = join(__dirname, '../../..');
const read = (file: string) =>
  parseAllDocuments(readFileSync(join(ROOT, file), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS();
  });

/** The DaemonSet runs the installer the build makes, with the settings, mounts and template that make it configure a node. */
describe('deploy/cni-daemonset.yaml', () => {
  const docs = read('deploy/cni-daemonset.yaml');
  const daemonSet = docs.find((d) => d.kind === 'DaemonSet');
  const configMap = docs.find((d) => d.kind === 'ConfigMap');
  const pod = daemonSet.spec.template.spec;
  const [container] = pod.containers;
  const volumeAt = (path: string) => {
    const mount = container.volumeMounts.find((m: { mountPath: string }) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
    return pod.volumes.find((v: { name: string }) => v.name === mount?.name);
  };
  // the variables kubelet gives the container: literal ones, spec.nodeName, and those of the Service ipledger-api
  const [service] = read('deploy/api-service.yaml');
  const serviceVariable = service.metadata.name.toUpperCase().replace(/-/g, '_');
  const env = Object.fromEntries(
    container.env.map((e: { name: string; value?: string; valueFrom?: { fieldRef: { fieldPath: string } } }) => [
      e.name,
      e.value ?? `<${e.valueFrom!.fieldRef.fieldPath}>`,
    ]),
  );
  const settings = installerSettings(
    { ...env, [`${serviceVariable}_SERVICE_HOST`]: '10.96.0.50', [`${serviceVariable}_SERVICE_PORT`]: '8080' },
    '/app/dist/cni',
  );

  it('runs the installer (dist/cni/install-cni.js, install-cni.int.spec.ts runs it), next to the plugin it installs', () => {
    expect(container.command).toEqual(['node', '/app/dist/cni/install-cni.js']);
    expect(settings.plugin).toBe('/app/dist/cni/ipledger-ipam');
  });

  it("names the node by spec.nodeName (the downward API), and reaches the API through the Service's variables", () => {
    expect(settings.nodeName).toBe('<spec.nodeName>');
    expect(settings.apiUrl).toBe('http://10.96.0.50:8080');
    expect(pod.enableServiceLinks).not.toBe(false);
    expect(settings.mode).toBe('conflist');
  });

  it("writes into the host's /opt/cni/bin and /etc/cni/net.d, and the conflist names the host's token path", () => {
    expect(volumeAt(settings.binDir).hostPath.path).toBe('/opt/cni/bin');
    expect(volumeAt(settings.netDir).hostPath.path).toBe('/etc/cni/net.d');
    expect(settings.hostNetDir).toBe('/etc/cni/net.d');
    expect(settings.conflistName).toMatch(/^\d\d-ipledger\.conflist$/);
  });

  it("reads the token its pod's ServiceAccount is projected for the API, and the base carries no Secret", () => {
    const [source] = volumeAt(settings.tokenSource!).projected.sources;
    expect(source.serviceAccountToken).toMatchObject({ audience: 'ipledger', path: settings.tokenSource!.split('/').pop() });
    expect(docs.find((d) => d.kind === 'ServiceAccount').metadata.name).toBe(pod.serviceAccountName);
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
  });

  it('every template of its ConfigMap renders into a conflist the plugin accepts, and the one in use is there', () => {
    expect(volumeAt(settings.template).configMap.name).toBe(configMap.metadata.name);
    const key = settings.template.split('/').pop()!;
    expect(Object.keys(configMap.data)).toEqual(expect.arrayContaining([key, 'bridge.conflist.template', 'ptp.conflist.template']));
    for (const template of Object.values<string>(configMap.data)) {
      const rendered = JSON.parse(renderConflist(template, { nodeName: 'n1', apiUrl: settings.apiUrl, tokenFile: '/t' }));
      expect(rendered.plugins[0].ipam).toMatchObject({ type: 'ipledger-ipam', node: 'n1', url: settings.apiUrl, tokenFile: '/t' });
    }
  });

  it('sets the pool rule matchLabel in every template when IPAM_CNI_MATCH_LABEL is given, and none when it is empty', () => {
    expect(env.IPAM_CNI_MATCH_LABEL).toBe('');
    expect(settings.matchLabel).toBeUndefined();
    const withLabel = installerSettings(
      {
        ...env,
        IPAM_CNI_MATCH_LABEL: 'pool-group',
        [`${serviceVariable}_SERVICE_HOST`]: '10.96.0.50',
        [`${serviceVariable}_SERVICE_PORT`]: '8080',
      },
      '/app/dist/cni',
    );
    for (const template of Object.values<string>(configMap.data)) {
      const values = { nodeName: 'n1', apiUrl: settings.apiUrl, tokenFile: '/t' };
      expect(JSON.parse(renderConflist(template, values)).plugins[0].ipam).not.toHaveProperty('matchLabel');
      const rendered = JSON.parse(renderConflist(template, { ...values, matchLabel: withLabel.matchLabel }));
      expect(rendered.plugins[0].ipam).toMatchObject({ type: 'ipledger-ipam', matchLabel: 'pool-group' });
    }
  });

  it('runs on every node, before anything else', () => {
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    expect(pod.priorityClassName).toBe('system-node-critical');
    expect(pod.hostNetwork).toBe(true);
  });
});
