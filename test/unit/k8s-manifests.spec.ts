import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Service } from 'kubernetes-models/v1/Service';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

/**
 * The Kubernetes manifests (deploy/k8s, docs/scaling.md "Kubernetes") are objects the API server
 * accepts: each is validated against the Kubernetes schemas by kubernetes-models, and every pod
 * meets the Pod Security "restricted" profile and the operational rules a platform team expects.
 * The production overlay is checked as kustomize builds it (kubectl's built-in kustomize, no network).
 * docs/operations.md ("Probes", "The migration Job", "NetworkPolicy", "Images by digest") says why
 * each rule checked here is there.
 */
type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  automountServiceAccountToken?: boolean;
};
type Probe = { httpGet?: { path: string; port: string | number }; periodSeconds?: number; failureThreshold?: number; timeoutSeconds?: number };
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
type Container = {
  name: string;
  image: string;
  command?: string[];
  ports?: { name: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: unknown[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string }[];
};
type PodSpec = {
  securityContext?: Record<string, unknown>;
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: { sizeLimit?: string; medium?: string } }[];
};

const ROOT = join(process.cwd(), 'deploy/k8s');
const MODELS: Record<string, new (o: object) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/Service': Service,
  'v1/Secret': Secret,
  'v1/ServiceAccount': ServiceAccount,
};

function parse(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}
const file = (...path: string[]) => parse(readFileSync(join(ROOT, ...path), 'utf8'));
const base = () =>
  readdirSync(join(ROOT, 'base'))
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => file('base', f));

/** Validates against the schema of its kind; throws with the path of the first violation. */
function validate(o: Obj): void {
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) throw new Error(`no model for ${o.apiVersion} ${o.kind}`);
  new Model(o).validate();
}

function podOf(o: Obj): PodSpec | null {
  const spec = o.spec as { template?: { spec: PodSpec } } | undefined;
  return spec?.template?.spec ?? null;
}
function podLabelsOf(o: Obj): Labels {
  return (o.spec as { template: { metadata: { labels: Labels } } }).template.metadata.labels;
}
const one = (objects: Obj[], kind: string, name?: string) => objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name))!;

/** What the "restricted" Pod Security profile and our own rules refuse in one pod; empty when none. */
function restrictedViolations(o: Obj): string[] {
  const pod = podOf(o);
  if (!pod) return [];
  const out: string[] = [];
  const psc = pod.securityContext ?? {};
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const sc = c.securityContext ?? {};
    const at = `${o.kind} ${o.metadata.name} container ${c.name}`;
    if (sc.allowPrivilegeEscalation !== false) out.push(`${at}: allowPrivilegeEscalation must be false`);
    if (!(sc.runAsNonRoot === true || psc.runAsNonRoot === true)) out.push(`${at}: runAsNonRoot`);
    if (sc.runAsUser === 0 || psc.runAsUser === 0) out.push(`${at}: runs as root`);
    const drop = ((sc.capabilities as { drop?: string[] } | undefined)?.drop ?? []).map((d) => d.toUpperCase());
    if (!drop.includes('ALL')) out.push(`${at}: capabilities.drop must include ALL`);
    const added = (sc.capabilities as { add?: string[] } | undefined)?.add ?? [];
    if (added.some((a) => a.toUpperCase() !== 'NET_BIND_SERVICE')) out.push(`${at}: adds capabilities ${added.join(',')}`);
    const seccomp = ((sc.seccompProfile ?? psc.seccompProfile) as { type?: string } | undefined)?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') out.push(`${at}: seccompProfile RuntimeDefault`);
    if (sc.privileged === true) out.push(`${at}: privileged`);
    if (sc.readOnlyRootFilesystem !== true) out.push(`${at}: readOnlyRootFilesystem`);
    if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory || !c.resources?.limits?.memory) out.push(`${at}: resources`);
    if (/:latest(@|$)/.test(c.image) || !/:[\w.-]+(@sha256:[0-9a-f]{64})?$/.test(c.image)) out.push(`${at}: image ${c.image} has no release tag`);
  }
  return out;
}

type Labels = Record<string, string>;
type Selector = { matchLabels?: Labels; matchExpressions?: unknown[] };
type PolicyPeer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: { cidr: string; except?: string[] } };
type PolicyRule = { from?: PolicyPeer[]; to?: PolicyPeer[]; ports?: { port?: number | string; protocol?: string }[] };
type PolicySpec = { podSelector: Selector; policyTypes: string[]; ingress?: PolicyRule[]; egress?: PolicyRule[] };
/** Who is at the other end: a pod (its namespace's labels and its own), or an address outside the cluster. */
type Peer = { namespace: Labels; pod: Labels } | { ip: string };

/** The namespace the manifests are applied in (the production overlay's). */
const HOME = { 'kubernetes.io/metadata.name': 'pms' };
const ns = (name: string) => ({ 'kubernetes.io/metadata.name': name });

function selects(selector: Selector | undefined, labels: Labels): boolean {
  if (selector?.matchExpressions?.length) throw new Error('matchExpressions are not evaluated here: use matchLabels');
  return Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

function peerMatches(p: PolicyPeer, peer: Peer): boolean {
  if (p.ipBlock) {
    if (!('ip' in peer)) return false;
    const ip = ipaddr.parse(peer.ip);
    const within = (cidr: string) => {
      const [range, bits] = ipaddr.parseCIDR(cidr);
      return ip.kind() === range.kind() && ip.match(range, bits);
    };
    return within(p.ipBlock.cidr) && !(p.ipBlock.except ?? []).some(within);
  }
  if ('ip' in peer) return false;
  // A peer without a namespaceSelector is a pod of the policy's own namespace.
  return selects(p.namespaceSelector ?? { matchLabels: HOME }, peer.namespace) && selects(p.podSelector, peer.pod);
}

/**
 * Whether the policy lets this connection through, as Kubernetes reads it: a rule without peers
 * (or ports) matches any; a direction not in policyTypes is not restricted by it. Named ports are
 * the selected pods' container ports.
 */
function allows(policy: PolicySpec, direction: 'ingress' | 'egress', peer: Peer, port: number, protocol = 'TCP', named: Record<string, number> = {}): boolean {
  if (!policy.policyTypes.map((t) => t.toLowerCase()).includes(direction)) return true;
  return (policy[direction] ?? []).some((rule) => {
    const peers = direction === 'ingress' ? rule.from : rule.to;
    const peerOk = !peers?.length || peers.some((p) => peerMatches(p, peer));
    const portOk =
      !rule.ports?.length ||
      rule.ports.some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || (typeof p.port === 'number' ? p.port : named[p.port]) === port));
    return peerOk && portOk;
  });
}

describe('Kubernetes manifests (deploy/k8s)', () => {
  it('validates every object of the base and the example Secret against the Kubernetes schemas', () => {
    const objects = [...base(), ...file('secret.example.yaml')];
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'Deployment',
      'Job',
      'NetworkPolicy',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Secret',
      'Service',
      'ServiceAccount',
    ]);
    // Every file of the base is in its kustomization, so `kubectl apply -k` applies it.
    const listed = (file('base', 'kustomization.yaml')[0] as unknown as { resources: string[] }).resources;
    expect([...listed].sort()).toEqual(
      readdirSync(join(ROOT, 'base'))
        .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
        .sort(),
    );
    for (const o of objects) validate(o);
  });

  it('refuses an object the schema refuses (the validation can fail)', () => {
    const broken = { ...base().find((o) => o.kind === 'Deployment')!, spec: { replicas: 'three' } } as Obj;
    expect(() => validate(broken)).toThrow();
  });

  it('meets the restricted Pod Security profile, with resources and a release tag on every container', () => {
    const deployment = base().find((o) => o.kind === 'Deployment')!;
    expect(restrictedViolations(deployment)).toEqual([]);
    expect(restrictedViolations(base().find((o) => o.kind === 'Job')!)).toEqual([]);
    // The rules bite: a container without them is reported.
    const loose = structuredClone(deployment);
    const c = podOf(loose)!.containers[0];
    c.image = 'pms-api:latest';
    c.securityContext = {};
    delete c.resources;
    // (the pod-level seccompProfile still applies to it: five findings)
    expect(restrictedViolations(loose)).toHaveLength(5);
  });

  it('gives the API a writable /tmp on disk, bounded (its root filesystem is read-only; XLSX imports unpack sheets there)', () => {
    const pod = podOf(base().find((o) => o.kind === 'Deployment')!)!;
    const mount = pod.containers[0].volumeMounts?.find((m) => m.mountPath === '/tmp');
    expect(mount).toBeDefined();
    const volume = pod.volumes?.find((v) => v.name === mount!.name);
    // On the node's disk (not memory, which would count against the container's 1 GiB), with a size limit.
    expect(volume?.emptyDir).toBeDefined();
    expect(volume!.emptyDir!.medium ?? '').toBe('');
    expect(volume!.emptyDir!.sizeLimit).toMatch(/^\d+Gi$/);
    expect(parseInt(volume!.emptyDir!.sizeLimit!, 10)).toBeGreaterThanOrEqual(2);
  });

  it('has a PodDisruptionBudget, topology spread and Prometheus scrape annotations for the replicas', () => {
    const objects = base();
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const labels = (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget')!;
    expect((pdb.spec as { selector: { matchLabels: object } }).selector.matchLabels).toEqual(labels);
    expect((pdb.spec as { maxUnavailable?: number }).maxUnavailable).toBe(1);
    const template = (
      deployment.spec as {
        template: {
          metadata: { annotations: Record<string, string> };
          spec: { topologySpreadConstraints: object[]; containers: { name: string; ports: object[]; env: object[] }[] };
        };
      }
    ).template;
    expect(template.spec.topologySpreadConstraints.map((t) => (t as { topologyKey: string }).topologyKey)).toEqual([
      'topology.kubernetes.io/zone',
      'kubernetes.io/hostname',
    ]);
    expect(template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
    // The scrape has its own port, which the Service does not expose.
    const api = template.spec.containers.find((c) => c.name === 'api')!;
    expect(api.ports).toContainEqual({ name: 'metrics', containerPort: 9464 });
    expect(api.env).toContainEqual({ name: 'METRICS_PORT', value: '9464' });
  });

  it('runs migrations in one Job per release that cleans up after itself', () => {
    const job = base().find((o) => o.kind === 'Job')!;
    const image = podOf(job)!.containers[0].image;
    const tag = image.split(':')[1];
    expect(job.metadata.name).toBe(`pms-api-migrate-${tag.replace(/\./g, '-')}`);
    expect((job.spec as { ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished).toBeGreaterThan(0);
    expect(podOf(job)!.containers[0].image).toBe(podOf(base().find((o) => o.kind === 'Deployment')!)!.containers[0].image);
  });

  it('probes: a startup probe on liveness, then liveness and readiness; a rollout waits out the migration lock', () => {
    const deployment = one(base(), 'Deployment');
    const api = podOf(deployment)!.containers.find((c) => c.name === 'api')!;
    // Liveness never asks the database: a replica waiting for another's migrations is alive.
    expect(api.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(api.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
    // The startup probe holds liveness back until the process listens, for up to a minute.
    const startup = api.startupProbe!;
    expect(startup.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect((startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3)).toBeGreaterThanOrEqual(30);
    for (const probe of [startup, api.livenessProbe!, api.readinessProbe!]) expect(probe.timeoutSeconds).toBeGreaterThanOrEqual(2);
    // A new pod may stay unready as long as it waits for the lock: the rollout's deadline is longer.
    const lockWait = Number(api.env!.find((e) => e.name === 'MIGRATION_LOCK_TIMEOUT_MS')!.value);
    expect((deployment.spec as { progressDeadlineSeconds: number }).progressDeadlineSeconds * 1000).toBeGreaterThan(lockWait);
  });

  it('runs the Deployment and the Job under a ServiceAccount of their own whose token is never mounted', () => {
    const objects = base();
    const account = one(objects, 'ServiceAccount');
    expect(account.automountServiceAccountToken).toBe(false);
    for (const o of [one(objects, 'Deployment'), one(objects, 'Job')]) {
      expect({ kind: o.kind, serviceAccountName: podOf(o)!.serviceAccountName, automount: podOf(o)!.automountServiceAccountToken }).toEqual({
        kind: o.kind,
        serviceAccountName: account.metadata.name,
        automount: false,
      });
    }
  });

  it('gives the migration Job only what `pms-api migrate` reads: the database URL from the Secret, no JWT_SECRET, no ADMIN_*', () => {
    const migrate = podOf(one(base(), 'Job'))!.containers[0];
    expect(migrate.command).toEqual(['node', 'dist/src/database/migrate.js']);
    expect(migrate.envFrom).toBeUndefined();
    const env = migrate.env ?? [];
    expect(env.map((e) => e.name).sort()).toEqual(['DATABASE_URL', 'DB_QUERY_TIMEOUT_MS', 'MIGRATION_LOCK_TIMEOUT_MS', 'NODE_ENV', 'REQUEST_TIMEOUT_MS']);
    expect(env.find((e) => e.name === 'DATABASE_URL')!.valueFrom).toEqual({ secretKeyRef: { name: 'pms-api', key: 'DATABASE_URL' } });
    expect(env.filter((e) => e.valueFrom).map((e) => e.name)).toEqual(['DATABASE_URL']);
    // A long ALTER is not stopped by the requests' 10 s statement limit.
    expect(Number(env.find((e) => e.name === 'DB_QUERY_TIMEOUT_MS')!.value)).toBeGreaterThanOrEqual(600_000);
  });

  describe('NetworkPolicy', () => {
    const objects = base();
    const deployment = one(objects, 'Deployment');
    const job = one(objects, 'Job');
    const api = one(objects, 'NetworkPolicy', 'pms-api').spec as PolicySpec;
    const migrate = one(objects, 'NetworkPolicy', 'pms-api-migrate').spec as PolicySpec;
    const ports = Object.fromEntries(podOf(deployment)!.containers[0].ports!.map((p) => [p.name, p.containerPort]));
    const ingressController = { namespace: ns('ingress-nginx'), pod: { 'app.kubernetes.io/name': 'ingress-nginx' } };
    const prometheus = { namespace: ns('monitoring'), pod: { 'app.kubernetes.io/name': 'prometheus' } };
    const database = { namespace: ns('database'), pod: { 'app.kubernetes.io/name': 'mariadb' } };
    const redis = { namespace: ns('database'), pod: { 'app.kubernetes.io/name': 'redis' } };
    const dns = { namespace: ns('kube-system'), pod: { 'k8s-app': 'kube-dns' } };
    const PRIVATE = ['10.0.0.5', '172.16.4.1', '192.168.1.10', '169.254.169.254', '127.0.0.1', '100.64.0.1', '0.0.0.0', 'fd00::1', 'fe80::1', '::1'];

    it('selects the service pods and the Job pods apart, each restricted both ways', () => {
      expect(selects(api.podSelector, podLabelsOf(deployment))).toBe(true);
      expect(selects(api.podSelector, podLabelsOf(job))).toBe(false);
      expect(selects(migrate.podSelector, podLabelsOf(job))).toBe(true);
      expect(selects(migrate.podSelector, podLabelsOf(deployment))).toBe(false);
      for (const p of [api, migrate]) expect([...p.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    });

    it('lets in the ingress controller on the API port and Prometheus on the metrics port, nothing else', () => {
      const into = (peer: Peer, port: number) => allows(api, 'ingress', peer, port, 'TCP', ports);
      expect(into(ingressController, ports.http)).toBe(true);
      expect(into(ingressController, ports.metrics)).toBe(false);
      expect(into(prometheus, ports.metrics)).toBe(true);
      expect(into(prometheus, ports.http)).toBe(false);
      // Another pod of the Prometheus namespace, any other namespace, the pods next door, an address.
      expect(into({ namespace: ns('monitoring'), pod: { app: 'grafana' } }, ports.metrics)).toBe(false);
      expect(into({ namespace: ns('default'), pod: {} }, ports.http)).toBe(false);
      expect(into({ namespace: HOME, pod: { app: 'other' } }, ports.http)).toBe(false);
      expect(into({ ip: '203.0.113.7' }, ports.http)).toBe(false);
    });

    it('lets the service reach DNS, the database, Redis, and public addresses on 443 and 80, nothing else', () => {
      const out = (peer: Peer, port: number, protocol = 'TCP') => allows(api, 'egress', peer, port, protocol);
      expect([out(dns, 53, 'UDP'), out(dns, 53, 'TCP'), out(database, 3306), out(redis, 6379)]).toEqual([true, true, true, true]);
      expect([out(database, 22), out(redis, 3306), out({ namespace: ns('default'), pod: { 'app.kubernetes.io/name': 'mariadb' } }, 3306)]).toEqual([
        false,
        false,
        false,
      ]);
      // Webhook receivers and identity providers: public addresses, IPv4 and IPv6, on 443 and 80 only.
      for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) {
        expect({ ip, https: out({ ip }, 443), http: out({ ip }, 80), smtp: out({ ip }, 25), dns: out({ ip }, 53, 'UDP') }).toEqual({
          ip,
          https: true,
          http: true,
          smtp: false,
          dns: false,
        });
      }
      // Never a private, loopback, link-local (cloud metadata) or shared address, on any port.
      for (const ip of PRIVATE) expect({ ip, https: out({ ip }, 443), http: out({ ip }, 80) }).toEqual({ ip, https: false, http: false });
      // No rule lets everything through: each names its peers and its ports.
      expect(api.egress!.filter((r) => !r.to?.length || !r.ports?.length)).toEqual([]);
    });

    it('lets the migration Job reach DNS and the database only, and nothing reach it', () => {
      const out = (peer: Peer, port: number, protocol = 'TCP') => allows(migrate, 'egress', peer, port, protocol);
      expect([out(dns, 53, 'UDP'), out(dns, 53, 'TCP'), out(database, 3306)]).toEqual([true, true, true]);
      expect([out(redis, 6379), out({ ip: '93.184.216.34' }, 443), out({ ip: '10.0.0.5' }, 3306)]).toEqual([false, false, false]);
      expect([allows(migrate, 'ingress', ingressController, 3000), allows(migrate, 'ingress', prometheus, 9464)]).toEqual([false, false]);
    });

    it('can fail: a policy without the private ranges excepted lets the metadata address through', () => {
      const open = structuredClone(api);
      for (const rule of open.egress!) for (const peer of rule.to ?? []) if (peer.ipBlock) delete peer.ipBlock.except;
      expect(allows(open, 'egress', { ip: '169.254.169.254' }, 80)).toBe(true);
      const noEgress = { ...api, policyTypes: ['Ingress'] };
      expect(allows(noEgress, 'egress', { ip: '10.0.0.5' }, 22)).toBe(true);
    });
  });

  it('builds the production overlay into valid objects that keep every rule, every image pinned by digest (kubectl kustomize)', () => {
    const patches = [...file('overlays/production/deployment-production.yaml')];
    for (const p of patches) expect(p.kind).toBe('Deployment');
    const built = kustomize(join(ROOT, 'overlays/production')) ?? withoutKubectl(patches, ROOT);
    for (const o of built) validate(o);
    for (const o of built) expect(restrictedViolations(o)).toEqual([]);
    const deployment = built.find((o) => o.kind === 'Deployment')!;
    expect(podOf(deployment)!.containers[0].resources?.limits?.memory).toBe('1Gi');
    // Given two CPUs, the collector keeps its background threads (the base, one CPU, runs without).
    expect(podOf(deployment)!.containers[0].resources?.limits?.cpu).toBe('2');
    expect(podOf(deployment)!.containers[0].command).toEqual([
      'node',
      '--min-semi-space-size=64',
      '--max-semi-space-size=64',
      '--heap-growing-percent=50',
      'dist/src/main.js',
    ]);
    const images = built.flatMap((o) => (podOf(o)?.containers ?? []).map((c) => c.image));
    expect(images.length).toBeGreaterThanOrEqual(kubectlMissing ? 1 : 2);
    expect(new Set(images).size).toBe(1);
    // The runtime pulls the digest: a tag pushed again changes nothing that runs.
    expect(images[0]).toMatch(/^registry\.example\.com\/pms\/pms-api:[\w.-]+@sha256:[0-9a-f]{64}$/);
    // Behind the ingress every client shares its address unless it is trusted (docs/security.md, "Throttling without lockout").
    const env = (podOf(patches[0])!.containers[0] as { env?: { name: string; value?: string }[] }).env ?? [];
    expect(env.find((e) => e.name === 'TRUST_PROXY')?.value).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
  });

  it('pins a release with one command (scripts/pin-image.mjs): tag, digest and the Job of the release, and refuses a digest that is not one', () => {
    const copy = mkdtempSync(join(tmpdir(), 'pms-k8s-'));
    try {
      cpSync(ROOT, copy, { recursive: true });
      const overlay = join(copy, 'overlays/production');
      const pin = (...args: string[]) =>
        spawnSync(process.execPath, [join(process.cwd(), 'scripts/pin-image.mjs'), ...args, '--overlay', overlay], { encoding: 'utf8' });
      const digest = `sha256:${'ab'.repeat(32)}`;
      const before = readFileSync(join(overlay, 'kustomization.yaml'), 'utf8');
      expect(pin('0.2.0', 'sha256:abc')).toMatchObject({ status: 2, stderr: expect.stringContaining('is not a digest') });
      expect(pin('0.2.0', digest.replace('ab', 'AB'))).toMatchObject({ status: 2 });
      expect(readFileSync(join(overlay, 'kustomization.yaml'), 'utf8')).toBe(before);
      expect(pin('0.2.0', digest)).toMatchObject({ status: 0 });
      // Only the pinned values changed: the comments stay.
      const after = readFileSync(join(overlay, 'kustomization.yaml'), 'utf8');
      expect(after.split('\n').filter((l) => l.startsWith('#'))).toEqual(before.split('\n').filter((l) => l.startsWith('#')));
      const built = kustomize(overlay) ?? withoutKubectl(file('overlays/production/deployment-production.yaml'), copy);
      const images = built.flatMap((o) => (podOf(o)?.containers ?? []).map((c) => c.image));
      expect(new Set(images)).toEqual(new Set([`registry.example.com/pms/pms-api:0.2.0@${digest}`]));
      const [rename] = parse(readFileSync(join(overlay, 'job-name.yaml'), 'utf8'))[0] as unknown as { path: string; value: string }[];
      expect(rename).toMatchObject({ path: '/metadata/name', value: 'pms-api-migrate-0-2-0' });
      if (!kubectlMissing) expect(built.find((o) => o.kind === 'Job')!.metadata.name).toBe('pms-api-migrate-0-2-0');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

let kubectlMissing = false;

/** The overlay as kustomize builds it (kubectl's built-in kustomize, no network); null without kubectl. */
function kustomize(dir: string): Obj[] | null {
  try {
    return parse(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    kubectlMissing = true;
    return null;
  }
}

/**
 * Without kubectl: the strategic-merge patch is itself a valid (partial) Deployment whose containers
 * keep the base's rules once merged, and the image is what the overlay's `images:` entry names; the
 * merge is what kustomize does.
 */
function withoutKubectl(patches: Obj[], root: string): Obj[] {
  const merged = structuredClone(base().find((o) => o.kind === 'Deployment')!);
  const { resources, command } = podOf(patches[0])!.containers[0];
  Object.assign(podOf(merged)!.containers[0], command ? { resources, command } : { resources });
  const overlay = parse(readFileSync(join(root, 'overlays/production/kustomization.yaml'), 'utf8'))[0] as unknown as {
    images: { name: string; newName: string; newTag: string; digest?: string }[];
  };
  const image = overlay.images.find((i) => i.name === 'pms-api')!;
  podOf(merged)!.containers[0].image = `${image.newName}:${image.newTag}${image.digest ? `@${image.digest}` : ''}`;
  return [merged];
}
