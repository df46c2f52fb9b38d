import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Ajv from 'ajv';
import { loadConfig } from '../../apps/api/src/config';
import { installerSettings } from '../../apps/cni/src/install/installer-settings';
import { renderConflist } from '../../apps/cni/src/install/render-conflist';
import { renderKustomization, yamlObjects, type KubeObject } from '../support/kustomize';

const ROOT = join(__dirname, '../..');

const render = (dir = join(ROOT, 'deploy')): KubeObject[] => renderKustomization(dir);

/**
 * The base with a component, as an operator's own kustomization names them (outside deploy/:
 * kustomize refuses an overlay inside its base), and what else it says (`more`, YAML).
 */
function renderWith(component: string, more = ''): KubeObject[] {
  const site = mkdtempSync(join(tmpdir(), 'ipledger-site-'));
  try {
    const deploy = relative(site, join(ROOT, 'deploy'));
    writeFileSync(join(site, 'kustomization.yaml'), `resources: [${deploy}]\ncomponents: [${deploy}/components/${component}]\n${more}`);
    return render(site);
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
}

/** The literal env of a container as a process would see it (values from Secrets and ConfigMaps left out). */
const literalEnv = (container: any): NodeJS.ProcessEnv =>
  Object.fromEntries(
    container.env.filter((e: { value?: string }) => e.value !== undefined).map((e: { name: string; value: string }) => [e.name, e.value]),
  );

/** The node installer's settings in the DaemonSet's pod, and the volume (with its mount) its token comes from. */
function installerToken(pod: any) {
  const [container] = pod.containers;
  const settings = installerSettings(
    { ...literalEnv(container), IPAM_NODE_NAME: 'worker-1', IPLEDGER_API_SERVICE_HOST: '10.96.0.50', IPLEDGER_API_SERVICE_PORT: '8080' },
    '/app/dist/cni',
  );
  const mount = container.volumeMounts.find((m: { mountPath: string }) => settings.tokenSource!.startsWith(`${m.mountPath}/`));
  return { settings, mount, volume: pod.volumes.find((v: { name: string }) => v.name === mount.name) };
}

/** The API's configuration from its container's env, with a kubeconfig standing in for the in-cluster service account. */
function apiConfig(container: any) {
  const dir = mkdtempSync(join(tmpdir(), 'ipledger-kubeconfig-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'current-context: c\nclusters: [{name: k, cluster: {server: "https://10.96.0.1"}}]\ncontexts: [{name: c, context: {cluster: k}}]\n',
    );
    return loadConfig({ ...literalEnv(container), KUBECONFIG: kubeconfig });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Errors of an object against the Kubernetes API schemas shipped by the pinned `kubernetes-models`, offline. */
async function kubernetesSchemaErrors(object: KubeObject): Promise<string[]> {
  // "v1" is the core group: kubernetes-models/v1/Service; kubernetes-models/apps/v1/Deployment
  let Model: new (data: KubeObject) => { validate(): void };
  try {
    const models = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<string, typeof Model>;
    Model = models[object.kind];
  } catch {
    return [`no Kubernetes schema for ${object.apiVersion} ${object.kind}`];
  }
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * A validator for the custom resources a CRD defines, from its openAPIV3Schema. Like strict field
 * validation, a field the schema does not name is an error (unless it preserves unknown fields).
 */
function customResourceValidator(crd: KubeObject) {
  const strict = (schema: any): any => {
    if (!schema || typeof schema !== 'object') return schema;
    const copy: any = Array.isArray(schema)
      ? schema.map(strict)
      : Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, strict(v)]));
    if (copy.type === 'object' && copy.properties && !copy['x-kubernetes-preserve-unknown-fields']) copy.additionalProperties = false;
    return copy;
  };
  const version = crd.spec.versions.find((v: { storage: boolean }) => v.storage);
  const schema = strict(version.schema.openAPIV3Schema);
  schema.properties = {
    ...schema.properties,
    apiVersion: { const: `${crd.spec.group}/${version.name}` },
    kind: { const: crd.spec.names.kind },
    metadata: { type: 'object', required: ['name'] },
  };
  schema.required = [...(schema.required ?? []), 'apiVersion', 'kind', 'metadata'];
  // the formats the API server checks in the CRDs' schemas (RFC 3339 times, 64-bit integers)
  const formats = {
    'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i,
    int64: { type: 'number' as const, validate: Number.isSafeInteger },
  };
  const validate = new Ajv({ strict: false, allErrors: true, formats }).compile(schema);
  return (object: unknown) => (validate(object) ? [] : validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}`));
}

interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

/** Kubernetes' rule (k8s.io/api/core/v1 Toleration.ToleratesTaint): an empty effect or key with Exists matches all. */
function tolerates(tolerations: Toleration[], taint: { key: string; value?: string; effect: string }): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

describe('deploy/ kustomize base', () => {
  const objects = render();
  const find = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`the base renders no ${kind} ${name}`);
    return found;
  };
  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  const customKinds = new Map(crds.map((crd) => [`${crd.spec.group}/${crd.spec.versions[0].name}/${crd.spec.names.kind}`, crd]));
  const isCustom = (o: KubeObject) => customKinds.has(`${o.apiVersion}/${o.kind}`);

  it('renders only objects that are valid against the Kubernetes API schemas', async () => {
    const checked = await Promise.all(
      objects
        .filter((o) => !isCustom(o))
        .map(async (o) => ({ object: `${o.kind} ${o.metadata.name}`, errors: await kubernetesSchemaErrors(o) })),
    );
    const invalid = checked.filter((result) => result.errors.length);
    expect(invalid).toEqual([]);
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining([
        'Namespace',
        'CustomResourceDefinition',
        'ClusterRole',
        'ClusterRoleBinding',
        'Deployment',
        'Service',
        'PodDisruptionBudget',
      ]),
    );
  });

  it('would fail on an object that is not valid Kubernetes', async () => {
    const api = structuredClone(find('Deployment', 'ipledger-api'));
    api.spec.replicas = 'two';
    delete api.spec.template.spec.containers[0].name;
    const errors = (await kubernetesSchemaErrors(api)).join('\n');
    expect(errors).toMatch(/replicas must be integer/);
    expect(errors).toMatch(/containers\/0 must have required property name/);
    expect(await kubernetesSchemaErrors({ apiVersion: 'v1', kind: 'Nonsense', metadata: { name: 'x' } })).toEqual([
      'no Kubernetes schema for v1 Nonsense',
    ]);
  });

  it('validates custom resources against their CRD: the example IPPool passes, a broken one does not', () => {
    const validate = customResourceValidator(find('CustomResourceDefinition', 'ippools.ipam.ipledger.io'));
    for (const o of objects.filter(isCustom))
      expect({ object: o.metadata.name, errors: validate(o) }).toEqual({ object: o.metadata.name, errors: [] });
    const [example] = yamlObjects(readFileSync(join(ROOT, 'deploy/examples/ippool.yaml'), 'utf8'));
    expect(validate(example)).toEqual([]);
    expect(validate({ ...example, spec: { cidr: 42, reserverd: [] } })).toEqual(
      expect.arrayContaining(['/spec/cidr must be string', '/spec must NOT have additional properties']),
    );
    expect(validate({ ...example, spec: {} })).toEqual(["/spec must have required property 'cidr'"]);
  });

  it('refuses by its patterns a malformed CIDR, gateway, reserved entry or node selector, and accepts well-formed ones', () => {
    const validate = customResourceValidator(find('CustomResourceDefinition', 'ippools.ipam.ipledger.io'));
    const pool = (spec: Record<string, unknown>) => ({
      apiVersion: 'ipam.ipledger.io/v1alpha1',
      kind: 'IPPool',
      metadata: { name: 'p' },
      spec,
    });
    for (const spec of [
      { cidr: '10.4.0.0/24', gateway: '10.4.0.1', reserved: ['10.4.0.2', '10.4.0.250-10.4.0.255'], nodeSelector: 'zone in (a,b),!gpu' },
      { cidr: 'fd00:4::/64', gateway: 'fd00:4::1', reserved: ['fd00:4::10-fd00:4::1f'] },
      { cidr: '0.0.0.0/0', nodeSelector: 'kubernetes.io/hostname=worker-1, tier!=db,ssd' },
      { cidr: '10.4.0.0/24', nodeSelector: '' },
    ])
      expect({ spec, errors: validate(pool(spec)) }).toEqual({ spec, errors: [] });
    for (const [spec, field] of [
      [{ cidr: '10.4.0.0' }, '/spec/cidr'],
      [{ cidr: '10.4.0.0/33' }, '/spec/cidr'],
      [{ cidr: '300.4.0.0/24' }, '/spec/cidr'],
      [{ cidr: 'rack-7' }, '/spec/cidr'],
      [{ cidr: '10.4.0.0/24', gateway: '10.4.0.1/24' }, '/spec/gateway'],
      [{ cidr: '10.4.0.0/24', reserved: ['10.4.0.2 - 10.4.0.9'] }, '/spec/reserved/0'],
      [{ cidr: '10.4.0.0/24', nodeSelector: 'zone in a,b' }, '/spec/nodeSelector'],
      [{ cidr: '10.4.0.0/24', nodeSelector: 'zone=(a)' }, '/spec/nodeSelector'],
      [{ cidr: '10.4.0.0/24', nodeSelector: '-zone' }, '/spec/nodeSelector'],
    ] as const)
      expect({ spec, errors: validate(pool(spec)) }).toEqual({
        spec,
        errors: [expect.stringMatching(new RegExp(`^${field} must match pattern`))],
      });
  });

  it('places the immutability rules on spec, the parent, so that adding a gateway later is refused too', () => {
    const crd = find('CustomResourceDefinition', 'ippools.ipam.ipledger.io');
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    const rules = (spec['x-kubernetes-validations'] as Array<{ rule: string }>).map((v) => v.rule);
    expect(rules).toEqual(expect.arrayContaining([expect.stringContaining('has(self.gateway) == has(oldSelf.gateway)')]));
    // cidr may grow or shrink (nested), never move
    expect(rules.some((rule) => rule.includes('cidr(self.cidr).containsCIDR(oldSelf.cidr)'))).toBe(true);
    // no transition rule on an optional field, where it would not run when the old object lacks it
    for (const [name, field] of Object.entries(spec.properties as Record<string, any>))
      expect({
        name,
        rules: (field['x-kubernetes-validations'] ?? []).filter((v: { rule: string }) => v.rule.includes('oldSelf')),
      }).toEqual({
        name,
        rules: [],
      });
  });

  it('runs the API as 2 non-root replicas on a read-only root, probed, with resources and its secrets from a Secret', () => {
    const api = find('Deployment', 'ipledger-api');
    expect(api.metadata.namespace).toBe('ipledger');
    expect(api.spec.replicas).toBe(2);
    const pod = api.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    const [container] = pod.containers;
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
    const fromSecret = (name: string) => container.env.find((e: { name: string }) => e.name === name)?.valueFrom?.secretKeyRef;
    expect(fromSecret('DATABASE_URL')).toEqual({ name: 'ipledger', key: 'DATABASE_URL' });
  });

  describe('a control plane that needs no pod IP', () => {
    const controlPlane = () => [
      find('Deployment', 'ipledger-api'),
      find('Deployment', 'ipledger-watcher'),
      find('Job', 'ipledger-migrate'),
    ];
    const env = (container: any, name: string) => container.env?.find((e: { name: string }) => e.name === name);

    it('runs the API, the watcher and the migrations on the host network, cluster-critical, on nodes not ready yet and control planes', () => {
      for (const workload of controlPlane()) {
        const pod = workload.spec.template.spec;
        const what = `${workload.kind} ${workload.metadata.name}`;
        expect({ what, hostNetwork: pod.hostNetwork, dnsPolicy: pod.dnsPolicy, priorityClassName: pod.priorityClassName }).toEqual({
          what,
          hostNetwork: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          priorityClassName: 'system-cluster-critical',
        });
        // the taints a new cluster's nodes carry until a CNI config exists, and kubeadm's control-plane taint
        const taints = [
          { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
          { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
        ];
        expect({ what, untolerated: taints.filter((taint) => !tolerates(pod.tolerations ?? [], taint)) }).toEqual({
          what,
          untolerated: [],
        });
      }
    });

    it('never puts two API replicas on one node, and replaces them one at a time without a surge pod', () => {
      const api = find('Deployment', 'ipledger-api');
      const terms = api.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution;
      expect(
        terms.some(
          (term: any) =>
            term.topologyKey === 'kubernetes.io/hostname' &&
            Object.entries(term.labelSelector.matchLabels).every(([k, v]) => api.spec.template.metadata.labels[k] === v),
        ),
      ).toBe(true);
      expect(api.spec.strategy.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
      expect(find('PodDisruptionBudget', 'ipledger-api').spec.minAvailable).toBe(1);
    });

    it('listens on host ports clear of Kubernetes, NodePorts, exporters and development ports, behind a Service on 8080', () => {
      const clashes = (port: number) =>
        (port >= 10248 && port <= 10260) ||
        (port >= 30000 && port <= 32767) ||
        (port >= 9100 && port <= 9999) ||
        port === 6789 ||
        (port >= 6800 && port <= 7300) ||
        [22, 53, 80, 443, 2379, 2380, 3000, 4222, 5000, 5432, 6443, 8000, 8080, 8443].includes(port);
      for (const name of ['ipledger-api', 'ipledger-watcher']) {
        const [container] = find('Deployment', name).spec.template.spec.containers;
        const port = container.ports[0].containerPort;
        expect({ name, port, env: Number(env(container, 'PORT').value), clashes: clashes(port) }).toEqual({
          name,
          port,
          env: port,
          clashes: false,
        });
      }
      const service = find('Service', 'ipledger-api');
      expect(service.spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http' }]);
    });

    it('gives the API its tokens as a file from the Secret, re-read on rotation, never in the environment', () => {
      const pod = find('Deployment', 'ipledger-api').spec.template.spec;
      const [container] = pod.containers;
      expect(env(container, 'IPAM_TOKENS')).toBeUndefined();
      const file: string = env(container, 'IPAM_TOKENS_FILE').value;
      const mount = container.volumeMounts.find((m: { mountPath: string }) => file.startsWith(`${m.mountPath}/`));
      // a subPath mount never sees the Secret's updates
      expect(mount).toMatchObject({ readOnly: true });
      expect(mount.subPath).toBeUndefined();
      const volume = pod.volumes.find((v: { name: string }) => v.name === mount.name);
      expect(volume.secret).toMatchObject({
        secretName: 'ipledger',
        items: [{ key: 'IPAM_TOKENS', path: file.slice(mount.mountPath.length + 1) }],
      });
    });

    it('migrates in a Job of its own as the schema owner; the API pods never migrate and never see the owner', () => {
      const job = find('Job', 'ipledger-migrate').spec.template.spec;
      expect(job.containers).toHaveLength(1);
      expect(job.containers[0].args).toEqual(['node', 'dist/cli.js', 'migrate']);
      expect(env(job.containers[0], 'IPAM_MIGRATIONS_DATABASE_URL').valueFrom.secretKeyRef).toEqual({
        name: 'ipledger-migrations',
        key: 'IPAM_MIGRATIONS_DATABASE_URL',
      });
      expect(env(job.containers[0], 'DATABASE_URL')).toBeUndefined();
      const api = find('Deployment', 'ipledger-api').spec.template.spec;
      expect(api.initContainers).toBeUndefined();
      for (const container of api.containers) {
        expect(env(container, 'IPAM_MIGRATE')).toEqual({ name: 'IPAM_MIGRATE', value: 'off' });
        expect(env(container, 'IPAM_MIGRATIONS_DATABASE_URL')).toBeUndefined();
        expect(container.args).not.toContain('migrate');
      }
      const secrets = JSON.stringify(api);
      expect(secrets).not.toMatch(/ipledger-migrations/);
    });

    it('probes: start-up on /healthz for 5 minutes, readiness on /readyz (the database only), liveness on /healthz', () => {
      for (const name of ['ipledger-api', 'ipledger-watcher']) {
        const [container] = find('Deployment', name).spec.template.spec.containers;
        const { startupProbe, readinessProbe, livenessProbe } = container;
        expect({ name, startup: startupProbe.httpGet, readiness: readinessProbe.httpGet, liveness: livenessProbe.httpGet }).toEqual({
          name,
          startup: { path: '/healthz', port: 'http' },
          readiness: { path: '/readyz', port: 'http' },
          liveness: { path: '/healthz', port: 'http' },
        });
        expect(startupProbe.periodSeconds * startupProbe.failureThreshold).toBeGreaterThanOrEqual(name === 'ipledger-api' ? 300 : 120);
        // the startup probe covers the start: liveness needs no initial delay of its own
        expect(livenessProbe.initialDelaySeconds).toBeUndefined();
      }
    });
  });

  it('selects the API pods from the Service and the PodDisruptionBudget, and keeps one up', () => {
    const podLabels = find('Deployment', 'ipledger-api').spec.template.metadata.labels;
    const service = find('Service', 'ipledger-api');
    const pdb = find('PodDisruptionBudget', 'ipledger-api');
    expect(podLabels).toMatchObject(service.spec.selector);
    expect(podLabels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(pdb.spec.minAvailable).toBe(1);
    expect(service.spec.ports[0].targetPort).toBe(find('Deployment', 'ipledger-api').spec.template.spec.containers[0].ports[0].name);
  });

  it('runs the watcher with the service account that RBAC grants list and watch to, and the ConfigMap both read exists', () => {
    const watcher = find('Deployment', 'ipledger-watcher');
    const binding = find('ClusterRoleBinding', 'ipledger-watcher');
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: watcher.spec.template.spec.serviceAccountName, namespace: 'ipledger' },
    ]);
    const configMaps = new Set(objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name));
    for (const deployment of [watcher, find('Deployment', 'ipledger-api')]) {
      for (const env of deployment.spec.template.spec.containers[0].env) {
        if (env.valueFrom?.configMapKeyRef) expect(configMaps).toContain(env.valueFrom.configMapKeyRef.name);
      }
    }
  });

  it('lets the non-root pods read the Secret files they mount (fsGroup, group-readable)', () => {
    for (const workload of objects.filter((o) => o.kind === 'Deployment')) {
      const pod = workload.spec.template.spec;
      for (const volume of (pod.volumes ?? []).filter((v: any) => v.secret)) {
        const mode = volume.secret.defaultMode ?? 0o644;
        const readable = (mode & 0o004) !== 0 || (pod.securityContext.fsGroup !== undefined && (mode & 0o040) !== 0);
        expect({ workload: workload.metadata.name, volume: volume.name, readable }).toEqual({
          workload: workload.metadata.name,
          volume: volume.name,
          readable: true,
        });
      }
    }
  });

  describe('node credentials: each node its own ServiceAccount token, reviewed by the API', () => {
    const cni = find('DaemonSet', 'ipledger-cni');
    const cniPod = cni.spec.template.spec;
    const api = find('Deployment', 'ipledger-api').spec.template.spec;

    it("projects the installer a token of its pod's ServiceAccount for the API's audience, and copies it to the host before it expires", () => {
      const account = find('ServiceAccount', cniPod.serviceAccountName);
      expect(account.automountServiceAccountToken).toBe(false);
      // no token for the Kubernetes API in the installer: only the one for ipledger
      expect(cniPod.automountServiceAccountToken).toBe(false);
      const { settings, mount, volume } = installerToken(cniPod);
      expect(mount).toMatchObject({ readOnly: true });
      const [source] = volume.projected.sources;
      expect(source.serviceAccountToken.path).toBe(settings.tokenSource!.slice(mount.mountPath.length + 1));
      const config = apiConfig(api.containers[0]);
      expect(source.serviceAccountToken.audience).toBe(config.tokenReview!.audience);
      // kubelet renews the token once 80 % of its life has passed: the installer's round must come well within the rest
      expect(settings.intervalSeconds).toBeLessThan(source.serviceAccountToken.expirationSeconds * 0.2);
    });

    it("has the API review those tokens, taking the installer's ServiceAccount as node credentials, with RBAC to create TokenReviews", () => {
      const config = apiConfig(api.containers[0]);
      expect(config.tokenReview).not.toBeNull();
      expect(config.tokenReview!.serviceAccounts).toContain(`system:serviceaccount:${cni.metadata.namespace}:${cniPod.serviceAccountName}`);
      // the static tokens stay: operators' and scripts'
      expect(config.tokensFile).toBe('/var/run/ipledger/tokens/tokens');
      // in-cluster: the API pod's own ServiceAccount token reaches the API server
      expect(api.automountServiceAccountToken).toBe(true);
      const bindings = objects.filter(
        (o) =>
          o.kind === 'ClusterRoleBinding' &&
          o.subjects?.some((s: any) => s.kind === 'ServiceAccount' && s.name === api.serviceAccountName && s.namespace === 'ipledger'),
      );
      const rules = bindings.flatMap((binding) => find('ClusterRole', binding.roleRef.name).rules);
      expect(rules).toEqual([{ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] }]);
    });
  });
});

describe('deploy/components/static-cni-token: one static allocator token for every node', () => {
  const objects = renderWith('static-cni-token');
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;

  it('renders valid objects, the installer copying the Secret ipledger-cni-token, and the API reviewing no token', async () => {
    const checked = await Promise.all(
      objects
        .filter((o) => o.kind !== 'IPPool')
        .map(async (o) => ({ object: `${o.kind} ${o.metadata.name}`, errors: await kubernetesSchemaErrors(o) })),
    );
    expect(checked.filter((result) => result.errors.length)).toEqual([]);
    const { mount, volume } = installerToken(find('DaemonSet', 'ipledger-cni').spec.template.spec);
    expect(volume).toEqual({ name: mount.name, secret: { secretName: 'ipledger-cni-token', defaultMode: 0o400 } });
    const api = find('Deployment', 'ipledger-api').spec.template.spec;
    expect(apiConfig(api.containers[0]).tokenReview).toBeNull();
    expect(api.automountServiceAccountToken).toBe(false);
  });
});

describe('deploy/components/member: a member cluster of a fleet, its ledger central', () => {
  const site = (literals: string[]) =>
    renderWith('member', `configMapGenerator:\n  - name: ipledger\n    behavior: merge\n    literals: [${literals.join(', ')}]\n`);
  const objects = site(['IPAM_CLUSTER=east', 'NATS_URL=nats://10.0.0.11:4222', 'IPAM_CNI_API_URL=http://10.0.0.10:7460']);
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.data?.NATS_URL)!;
  /** a container's env as its process sees it, the ConfigMap's values filled in */
  const envOf = (container: any): NodeJS.ProcessEnv =>
    Object.fromEntries(
      container.env.map((e: { name: string; value?: string; valueFrom?: { configMapKeyRef?: { name: string; key: string } } }) => {
        const ref = e.valueFrom?.configMapKeyRef;
        return [e.name, ref ? (ref.name === config.metadata.name ? config.data[ref.key] : undefined) : e.value];
      }),
    );

  it('renders valid objects: the watcher and the CNI DaemonSet as its only workloads, nothing of the API', async () => {
    const checked = await Promise.all(
      objects.map(async (o) => ({ object: `${o.kind} ${o.metadata.name}`, errors: await kubernetesSchemaErrors(o) })),
    );
    expect(checked.filter((result) => result.errors.length)).toEqual([]);
    const workloads = objects.filter((o) => ['Deployment', 'DaemonSet', 'StatefulSet', 'Job', 'CronJob', 'Pod'].includes(o.kind));
    expect(workloads.map((o) => `${o.kind} ${o.metadata.name}`).sort()).toEqual(['DaemonSet ipledger-cni', 'Deployment ipledger-watcher']);
    expect(objects.filter((o) => o.kind === 'Service' || /ipledger-(api|migrate)/.test(o.metadata.name))).toEqual([]);
  });

  it("names the cluster in the watcher and the central ledger's addresses: NATS for the watcher, the API for every node's CNI config", () => {
    const watcher = envOf(find('Deployment', 'ipledger-watcher').spec.template.spec.containers[0]);
    expect(watcher).toMatchObject({ IPAM_CLUSTER: 'east', NATS_URL: 'nats://10.0.0.11:4222' });
    const cni = find('DaemonSet', 'ipledger-cni').spec.template.spec;
    expect(cni.enableServiceLinks).toBe(false);
    const settings = installerSettings({ ...envOf(cni.containers[0]), IPAM_NODE_NAME: 'east-1' }, '/app/dist/cni');
    expect(settings.apiUrl).toBe('http://10.0.0.10:7460');
    // every node's CNI config names the cluster: the plugins call /v1/clusters/east/...
    expect(settings.cluster).toBe('east');
    // a cluster's allocator token from the Secret: the central API cannot review this cluster's ServiceAccount tokens
    const { volume } = installerToken(cni);
    expect(volume.secret).toEqual({ secretName: 'ipledger-cni-token', defaultMode: 0o400 });
  });

  it('has no default cluster or API address: without them the pods do not start rather than write elsewhere', () => {
    const bare = renderWith('member');
    const refs = bare
      .filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet')
      .flatMap((o) => o.spec.template.spec.containers[0].env)
      .filter((e: { name: string }) => ['IPAM_CLUSTER', 'IPAM_CNI_API_URL', 'IPAM_CNI_CLUSTER'].includes(e.name));
    expect(refs.map((e: any) => [e.name, e.valueFrom.configMapKeyRef.optional ?? false])).toEqual([
      ['IPAM_CLUSTER', false],
      ['IPAM_CNI_API_URL', false],
      ['IPAM_CNI_CLUSTER', false],
    ]);
    const data = bare.find((o) => o.kind === 'ConfigMap' && o.data?.NATS_URL)!.data;
    expect([data.IPAM_CLUSTER, data.IPAM_CNI_API_URL]).toEqual([undefined, undefined]);
  });
});

describe('deploy/components/tls: the base with TLS on', () => {
  const objects = renderWith('tls');
  const find = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`the TLS component renders no ${kind} ${name}`);
    return found;
  };
  const container = (kind: string, name: string) => find(kind, name).spec.template.spec.containers[0];
  const env = (c: any) => Object.fromEntries(c.env.map((e: { name: string; value?: string }) => [e.name, e.value]));
  /** the Secret key a container's file path comes from, through its volume mounts */
  const secretOf = (kind: string, name: string, file: string) => {
    const workload = find(kind, name).spec.template.spec;
    const mount = workload.containers[0].volumeMounts.find((m: { mountPath: string }) => file.startsWith(`${m.mountPath}/`));
    expect({ file, mounted: Boolean(mount), subPath: mount?.subPath }).toEqual({ file, mounted: true, subPath: undefined });
    const volume = workload.volumes.find((v: { name: string }) => v.name === mount.name);
    const key = file.slice(mount.mountPath.length + 1);
    const item = volume.secret.items?.find((i: { path: string }) => i.path === key);
    return { secret: volume.secret.secretName, key: item ? item.key : key };
  };

  it('renders valid Kubernetes objects, and cert-manager issues the API a certificate for the names clients use', async () => {
    const invalid = (
      await Promise.all(
        objects
          .filter((o) => !o.apiVersion.startsWith('cert-manager.io/') && o.kind !== 'IPPool')
          .map(async (o) => ({ object: `${o.kind} ${o.metadata.name}`, errors: await kubernetesSchemaErrors(o) })),
      )
    ).filter((r) => r.errors.length);
    expect(invalid).toEqual([]);
    const certificate = find('Certificate', 'ipledger-api');
    expect(certificate.metadata.namespace).toBe('ipledger');
    expect(certificate.spec.secretName).toBe('ipledger-api-tls');
    expect(certificate.spec.dnsNames).toContain('ipledger-api.ipledger.svc');
    const issuer = find('Issuer', certificate.spec.issuerRef.name);
    expect(find('Certificate', issuer.spec.ca.secretName).spec.isCA).toBe(true);
  });

  it('serves the API over HTTPS from the Secret cert-manager writes, re-read on renewal, with HTTPS probes', () => {
    const api = container('Deployment', 'ipledger-api');
    const vars = env(api);
    expect(secretOf('Deployment', 'ipledger-api', vars.IPAM_TLS_CERT_FILE)).toEqual({ secret: 'ipledger-api-tls', key: 'tls.crt' });
    expect(secretOf('Deployment', 'ipledger-api', vars.IPAM_TLS_KEY_FILE)).toEqual({ secret: 'ipledger-api-tls', key: 'tls.key' });
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
      expect({ probe, httpGet: api[probe].httpGet }).toEqual({
        probe,
        httpGet: expect.objectContaining({ scheme: 'HTTPS', port: 'http' }),
      });
    // the rest of the base is unchanged: tokens still from their file
    expect(vars.IPAM_TOKENS_FILE).toBe('/var/run/ipledger/tokens/tokens');
  });

  it("writes https:// with the CA and the certificate's name into every node's conflist", () => {
    const vars = env(container('DaemonSet', 'ipledger-cni'));
    expect(vars.IPAM_CNI_API_SCHEME).toBe('https');
    expect(secretOf('DaemonSet', 'ipledger-cni', vars.IPAM_CNI_CA_FILE)).toEqual({ secret: 'ipledger-api-tls', key: 'ca.crt' });
    expect(find('Certificate', 'ipledger-api').spec.dnsNames).toContain(vars.IPAM_CNI_TLS_SERVER_NAME);
    // what the installer then writes, from the ConfigMap's template and these settings
    const template = find('ConfigMap', 'ipledger-cni').data['bridge.conflist.template'];
    const settings = installerSettings(
      { ...vars, IPAM_NODE_NAME: 'worker-1', IPLEDGER_API_SERVICE_HOST: '10.96.0.50', IPLEDGER_API_SERVICE_PORT: '8080' },
      '/app/dist/cni',
    );
    const rendered = JSON.parse(
      renderConflist(template, {
        nodeName: settings.nodeName,
        apiUrl: settings.apiUrl,
        caFile: '/etc/cni/net.d/ipledger/ca.crt',
        tlsServerName: settings.tlsServerName,
      }),
    );
    expect(rendered.plugins[0].ipam).toMatchObject({
      url: 'https://10.96.0.50:8080',
      caFile: '/etc/cni/net.d/ipledger/ca.crt',
      tlsServerName: 'ipledger-api.ipledger.svc',
    });
  });

  it("makes the API and the watcher require TLS of NATS, trusting the CA, at the base's NATS_URL (the component leaves it alone)", () => {
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('ipledger-') && o.data?.NATS_URL);
    const base = renderKustomization(join(ROOT, 'deploy')).find((o) => o.kind === 'ConfigMap' && o.data?.NATS_URL);
    expect(config!.data.NATS_URL).toBe(base!.data.NATS_URL);
    for (const name of ['ipledger-api', 'ipledger-watcher']) {
      const c = container('Deployment', name);
      expect(c.env.find((e: { name: string }) => e.name === 'NATS_URL').valueFrom.configMapKeyRef.name).toBe(config!.metadata.name);
      // a CA file makes the client refuse a NATS that offers no TLS (libs/messaging/src/nats-security.ts)
      expect(secretOf('Deployment', name, env(c).IPAM_NATS_CA_FILE)).toEqual({ secret: 'ipledger-api-tls', key: 'ca.crt' });
    }
  });
});

describe('deploy/components/audit-head: audit heads kept outside the database', () => {
  const objects = renderWith('audit-head');
  const cronJob = objects.find((o) => o.kind === 'CronJob' && o.metadata.name === 'ipledger-audit-head');
  const pod = cronJob?.spec.jobTemplate.spec.template.spec;

  it('renders a valid CronJob in the namespace ipledger, one run at a time, whose failures stay listed', async () => {
    expect(cronJob && (await kubernetesSchemaErrors(cronJob))).toEqual([]);
    expect(cronJob!.metadata.namespace).toBe('ipledger');
    expect(cronJob!.spec).toMatchObject({ concurrencyPolicy: 'Forbid', failedJobsHistoryLimit: expect.any(Number) });
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.securityContext.runAsNonRoot).toBe(true);
  });

  it('verifies the head stored last before it fetches and stores a new one (steps in order: the first failure ends the run)', () => {
    expect(pod.initContainers.map((c: { name: string }) => c.name)).toEqual(['previous', 'verify', 'fetch']);
    expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(['store']);
    const verify = pod.initContainers[1];
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'ipledger-api');
    expect(verify.image).toBe(api!.spec.template.spec.containers[0].image);
    expect(verify.args[0]).toContain('node dist/cli.js verify-chain --head "$previous"');
    expect(verify.env.find((e: { name: string }) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef).toEqual({
      name: 'ipledger',
      key: 'DATABASE_URL',
    });
  });
});
