import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Service } from 'kubernetes-models/v1/Service';
import { Secret } from 'kubernetes-models/v1/Secret';

/**
 * The Kubernetes manifests (deploy/k8s, docs/scaling.md "Kubernetes") are objects the API server
 * accepts: each is validated against the Kubernetes schemas by kubernetes-models, and every pod
 * meets the Pod Security "restricted" profile and the operational rules a platform team expects.
 * The production overlay is checked as kustomize builds it (kubectl's built-in kustomize, no network).
 */
type Obj = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
type Container = {
  name: string;
  image: string;
  command?: string[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
};
type PodSpec = { securityContext?: Record<string, unknown>; containers: Container[]; initContainers?: Container[] };

const ROOT = join(process.cwd(), 'deploy/k8s');
const MODELS: Record<string, new (o: object) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/Service': Service,
  'v1/Secret': Secret,
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
    if (/:latest$/.test(c.image) || !/:[\w.-]+$/.test(c.image)) out.push(`${at}: image ${c.image} has no release tag`);
  }
  return out;
}

describe('Kubernetes manifests (deploy/k8s)', () => {
  it('validates every object of the base and the example Secret against the Kubernetes schemas', () => {
    const objects = [...base(), ...file('secret.example.yaml')];
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'Job', 'PodDisruptionBudget', 'Secret', 'Service']);
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

  it('builds the production overlay into valid objects that keep every rule (kubectl kustomize)', () => {
    const patches = [...file('overlays/production/deployment-production.yaml')];
    for (const p of patches) expect(p.kind).toBe('Deployment');
    let built: Obj[];
    try {
      built = parse(execFileSync('kubectl', ['kustomize', join(ROOT, 'overlays/production')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (e) {
      // Without kubectl: the strategic-merge patch is itself a valid (partial) Deployment whose
      // containers keep the base's rules once merged; the merge is what kustomize does.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      const merged = structuredClone(base().find((o) => o.kind === 'Deployment')!);
      const patch = podOf(patches[0])!;
      const { resources, command } = patch.containers[0];
      Object.assign(podOf(merged)!.containers[0], command ? { resources, command } : { resources });
      built = [merged];
    }
    for (const o of built) validate(o);
    for (const o of built) expect(restrictedViolations(o)).toEqual([]);
    const deployment = built.find((o) => o.kind === 'Deployment')!;
    expect(podOf(deployment)!.containers[0].resources?.limits?.memory).toBe('1Gi');
    // Given two CPUs, the collector keeps its background threads (the base, one CPU, runs without).
    expect(podOf(deployment)!.containers[0].resources?.limits?.cpu).toBe('2');
    expect(podOf(deployment)!.containers[0].command).toEqual(['node', '--min-semi-space-size=64', '--max-semi-space-size=64', 'dist/src/main.js']);
    const images = built.flatMap((o) => (podOf(o)?.containers ?? []).map((c) => c.image));
    expect(new Set(images).size).toBe(1);
  });
});
