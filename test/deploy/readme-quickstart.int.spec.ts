import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { renderKustomization, yamlObjects, type KubeObject } from '../support/kustomize';

const ROOT = join(__dirname, '../..');

/** The lines of the README's Kubernetes quickstart: its first `sh` block, continuation lines joined. */
function quickstartLines(readme: string): string[] {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quickstart 3: Kubernetes'));
  if (!section) throw new Error('README.md has no "## Quickstart 3: Kubernetes" section');
  const block = /^```sh\n([\s\S]*?)^```/m.exec(section);
  if (!block) throw new Error('the Kubernetes quickstart has no ```sh block');
  return block[1].replace(/\\\n\s*/g, ' ').split('\n');
}

interface Quickstart {
  /** the overlay's folder, as the README names it (my-ipledger) */
  overlayDir: string;
  /** the kustomization.yaml the README writes, verbatim */
  overlay: string;
  /** index of each step among the lines */
  namespaceAt: number;
  applyAt: number;
  secrets: Array<{ name: string; keys: string[]; at: number }>;
  /** the files the README applies with `kubectl apply -f` */
  applied: string[];
}

function readQuickstart(): Quickstart {
  const lines = quickstartLines(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const heredocAt = lines.findIndex((l) => /cat > \S+\/kustomization\.yaml <<'YAML'/.test(l));
  if (heredocAt < 0) throw new Error("the quickstart writes no kustomization.yaml (cat > <dir>/kustomization.yaml <<'YAML')");
  const overlayDir = /cat > (\S+)\/kustomization\.yaml/.exec(lines[heredocAt])![1];
  const endAt = lines.indexOf('YAML', heredocAt + 1);
  const secrets = lines.flatMap((line, at) => {
    const create = /kubectl -n ipledger create secret generic (\S+)(.*)$/.exec(line);
    if (!create) return [];
    const keys = [...create[2].matchAll(/--from-(?:literal|file)=([A-Za-z0-9_.-]+)=/g)].map((m) => m[1]);
    return [{ name: create[1], keys, at }];
  });
  return {
    overlayDir,
    overlay: lines.slice(heredocAt + 1, endAt).join('\n'),
    namespaceAt: lines.findIndex((l) => /kubectl apply -f deploy\/namespace\.yaml|kubectl create namespace ipledger/.test(l)),
    applyAt: lines.findIndex((l) => l.includes(`kubectl apply -k ${overlayDir}`)),
    secrets,
    applied: lines.flatMap((l) => [...l.matchAll(/kubectl apply -f (\S+)/g)].map((m) => m[1])),
  };
}

/** Renders the overlay beside a copy of deploy/, where the README's `../deploy` points. */
function renderOverlay(overlayDir: string, overlay: string): KubeObject[] {
  const site = mkdtempSync(join(tmpdir(), 'ipledger-readme-'));
  try {
    cpSync(join(ROOT, 'deploy'), join(site, 'deploy'), { recursive: true });
    mkdirSync(join(site, overlayDir));
    writeFileSync(join(site, overlayDir, 'kustomization.yaml'), `${overlay}\n`);
    return renderKustomization(join(site, overlayDir));
  } finally {
    rmSync(site, { recursive: true, force: true });
  }
}

/** The hosts of a URL list (`nats://a:4222,nats://b:4222`, libpq's `postgres://u:p@a:5432,b:5432/db`). */
function hosts(urls: string): string[] {
  return urls.split(',').map((part) => {
    const authority = /^(?:[a-z]+:\/\/)?(?:[^@/]*@)?([^/?]*)/i.exec(part)![1];
    return authority.startsWith('[') ? authority.slice(1, authority.indexOf(']')) : authority.replace(/:\d+$/, '');
  });
}

interface SecretUse {
  name: string;
  /** the key read; undefined when a whole Secret is mounted and nothing says which file is read */
  key?: string;
  by: string;
}

/** Every Secret the objects need: env, envFrom, volumes (whole, by items, projected), and cert-manager's CA issuers. */
function secretsUsed(objects: KubeObject[]): SecretUse[] {
  const uses: SecretUse[] = [];
  for (const o of objects) {
    const by = `${o.kind} ${o.metadata.name}`;
    if (o.kind === 'Issuer' && o.spec?.ca?.secretName) uses.push({ name: o.spec.ca.secretName, key: 'tls.key', by });
    const pod = o.spec?.template?.spec ?? o.spec?.jobTemplate?.spec?.template?.spec;
    if (!pod) continue;
    const containers = [...(pod.initContainers ?? []), ...pod.containers];
    for (const c of containers) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !ref.optional) uses.push({ name: ref.name, key: ref.key, by });
      }
      for (const from of c.envFrom ?? []) if (from.secretRef && !from.secretRef.optional) uses.push({ name: from.secretRef.name, by });
    }
    const sources = (pod.volumes ?? []).flatMap((v: any) => [
      ...(v.secret ? [{ volume: v.name, name: v.secret.secretName, items: v.secret.items, optional: v.secret.optional }] : []),
      ...(v.projected?.sources ?? [])
        .filter((s: any) => s.secret)
        .map((s: any) => ({ volume: v.name, name: s.secret.name, items: s.secret.items, optional: s.secret.optional })),
    ]);
    for (const source of sources) {
      if (source.optional) continue;
      if (source.items) {
        for (const item of source.items) uses.push({ name: source.name, key: item.key, by });
        continue;
      }
      // a whole Secret: the files the containers are told to read under its mount are its keys
      const files = containers.flatMap((c: any) =>
        (c.volumeMounts ?? [])
          .filter((m: any) => m.name === source.volume)
          .flatMap((m: any) =>
            (c.env ?? [])
              .map((e: any) => e.value)
              .filter((value: unknown): value is string => typeof value === 'string' && value.startsWith(`${m.mountPath}/`))
              .map((value: string) => value.slice(m.mountPath.length + 1)),
          ),
      );
      if (files.length) for (const key of files) uses.push({ name: source.name, key, by });
      else uses.push({ name: source.name, by });
    }
  }
  return uses;
}

/** The Secrets cert-manager writes for the Certificates among the objects, with the keys it writes. */
const issued = (objects: KubeObject[]) =>
  objects
    .filter((o) => o.kind === 'Certificate')
    .map((o) => ({ name: o.spec.secretName as string, keys: ['tls.crt', 'tls.key', 'ca.crt'], certificate: o }));

/**
 * The README's Kubernetes quickstart renders what it says: its overlay, copied out of README.md (the
 * heredoc in the quickstart's sh block), rendered as written and without its TLS line, keeps the
 * NATS address it gives; PostgreSQL and NATS are named by address; and every Secret the manifests
 * need is one the quickstart creates before it applies them, with the keys they read.
 */
describe("the README's Kubernetes quickstart", () => {
  const quickstart = readQuickstart();
  const tlsLine = quickstart.overlay.split('\n').find((l) => l.includes('components/tls'));
  const withoutTls = quickstart.overlay
    .split('\n')
    .filter((l) => l !== tlsLine)
    .join('\n');
  const natsUrl = (() => {
    const literals: string[] = (parse(quickstart.overlay).configMapGenerator ?? [])
      .filter((g: { name: string }) => g.name === 'ipledger')
      .flatMap((g: { literals?: string[] }) => g.literals ?? []);
    return literals.find((l) => l.startsWith('NATS_URL='))?.slice('NATS_URL='.length);
  })();
  const renders = {
    'as written (TLS on)': renderOverlay(quickstart.overlayDir, quickstart.overlay),
    'without the TLS line': renderOverlay(quickstart.overlayDir, withoutTls),
  };

  it('has a TLS line to leave out, and gives NATS_URL as addresses, not cluster DNS names', () => {
    expect(tlsLine).toBeDefined();
    expect(natsUrl).toBeDefined();
    expect(hosts(natsUrl!).filter((host) => !isIP(host))).toEqual([]);
  });

  describe.each(Object.entries(renders))('rendered %s', (_how, objects) => {
    const configMap = () => {
      const found = objects.filter((o) => o.kind === 'ConfigMap' && o.data?.NATS_URL !== undefined);
      expect(found.map((o) => o.metadata.name)).toEqual([expect.stringMatching(/^ipledger-/)]);
      return found[0];
    };

    it("keeps the overlay's NATS_URL in the ConfigMap the API and the watcher read, and names no Service there", () => {
      const config = configMap();
      expect(config.data.NATS_URL).toBe(natsUrl);
      expect(Object.entries(config.data).filter(([, value]) => /\.svc\b/.test(String(value)))).toEqual([]);
      for (const name of ['ipledger-api', 'ipledger-watcher']) {
        const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!;
        const env = deployment.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'NATS_URL');
        expect({ name, configMap: env.valueFrom.configMapKeyRef.name }).toEqual({ name, configMap: config.metadata.name });
      }
    });

    it('needs only Secrets the quickstart creates (names and keys) or cert-manager issues', () => {
      const provided = new Map<string, string[]>([
        ...quickstart.secrets.map((s): [string, string[]] => [s.name, s.keys]),
        ...issued(objects).map((s): [string, string[]] => [s.name, s.keys]),
      ]);
      const missing = secretsUsed(objects).filter((use) => {
        const keys = provided.get(use.name);
        return !keys || (use.key !== undefined && !keys.includes(use.key));
      });
      expect(missing).toEqual([]);
    });

    it('creates no Secret the manifests do not use', () => {
      const used = new Set(secretsUsed(objects).map((use) => use.name));
      expect(quickstart.secrets.map((s) => s.name).filter((name) => !used.has(name))).toEqual([]);
    });
  });

  it('creates the namespace, then the Secrets, then applies the overlay', () => {
    expect(quickstart.namespaceAt).toBeGreaterThanOrEqual(0);
    expect(quickstart.applyAt).toBeGreaterThan(quickstart.namespaceAt);
    expect(quickstart.secrets.length).toBeGreaterThan(0);
    for (const secret of quickstart.secrets)
      expect({
        secret: secret.name,
        afterNamespace: secret.at > quickstart.namespaceAt,
        beforeApply: secret.at < quickstart.applyAt,
      }).toEqual({
        secret: secret.name,
        afterNamespace: true,
        beforeApply: true,
      });
  });

  it('names PostgreSQL by address in every connection string it stores', () => {
    const lines = quickstartLines(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const urls = lines.flatMap((l) => [...l.matchAll(/(?:DATABASE_URL|IPAM_MIGRATIONS_DATABASE_URL)='([^']+)'/g)].map((m) => m[1]));
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.flatMap(hosts).filter((host) => !isIP(host))).toEqual([]);
  });

  it("with TLS on, applies NATS's certificate for the addresses of NATS_URL, as clients check it", () => {
    const certificates = quickstart.applied
      .filter((file) => file.startsWith('deploy/'))
      .flatMap((file) => yamlObjects(readFileSync(join(ROOT, file), 'utf8')))
      .filter((o) => o.kind === 'Certificate');
    const api = renders['as written (TLS on)'].find((o) => o.kind === 'Deployment' && o.metadata.name === 'ipledger-api')!;
    const caFile = api.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'IPAM_NATS_CA_FILE');
    expect(caFile).toBeDefined();
    const issuer = renders['as written (TLS on)'].find((o) => o.kind === 'Issuer' && o.spec.ca)!;
    const named = certificates.filter((c) => c.spec.issuerRef.name === issuer.metadata.name).flatMap((c) => c.spec.ipAddresses ?? []);
    expect(hosts(natsUrl!).filter((host) => !named.includes(host))).toEqual([]);
  });

  it("the base's own NATS_URL is an address too (an overlay replaces it)", () => {
    const base = renderKustomization(join(ROOT, 'deploy')).find((o) => o.kind === 'ConfigMap' && o.data?.NATS_URL);
    expect(hosts(base!.data.NATS_URL).filter((host) => !isIP(host))).toEqual([]);
  });
});
