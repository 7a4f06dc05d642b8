#!/usr/bin/env node
// Pins the production overlay to one release's image by digest (docs/operations.md, "Images by digest"):
//
//   node scripts/pin-image.mjs <release> <digest> [--overlay deploy/k8s/overlays/production]
//   node scripts/pin-image.mjs 0.2.0 sha256:4f1c…(64 hex digits)
//
// sets the overlay's `images:` entry for pms-api to that tag and digest (kustomize renders
// `<newName>:<release>@sha256:…`, and the runtime pulls the digest: a tag pushed again changes
// nothing that runs), and names the migration Job after the release (job-name.yaml; Jobs are
// immutable, so each release has its own). The digest is the one your registry reports for the
// pushed image, e.g. `docker buildx imagetools inspect <image>:<release> --format '{{.Manifest.Digest}}'`
// or `crane digest <image>:<release>`. Comments and layout of both files are kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

const IMAGE = 'pms-api';
const args = process.argv.slice(2);
const at = args.indexOf('--overlay');
const overlay = at >= 0 ? args.splice(at, 2)[1] : 'deploy/k8s/overlays/production';
const [release, digest] = args;

function fail(message) {
  process.stderr.write(`pin-image: ${message}\nusage: node scripts/pin-image.mjs <release> <sha256:digest> [--overlay <dir>]\n`);
  process.exit(2);
}

// A Docker tag; the Job's name (a DNS label, at most 63 characters) is derived from it.
if (!release || !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(release)) fail(`"${release ?? ''}" is not an image tag`);
if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) fail(`"${digest ?? ''}" is not a digest (sha256: and 64 lower-case hex digits)`);
const jobName = `pms-api-migrate-${release.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`.replace(/-+$/, '');
if (jobName.length > 63) fail(`the release "${release}" makes a Job name longer than 63 characters`);

const kustomizationFile = join(overlay, 'kustomization.yaml');
const kustomization = parseDocument(readFileSync(kustomizationFile, 'utf8'));
const images = kustomization.get('images');
const entry = images?.items?.find((item) => item.get('name') === IMAGE);
if (!entry) fail(`${kustomizationFile} has no images: entry named ${IMAGE}`);
entry.set('newTag', release);
entry.set('digest', digest);

const jobNameFile = join(overlay, 'job-name.yaml');
const patch = parseDocument(readFileSync(jobNameFile, 'utf8'));
const op = patch.contents?.items?.find((item) => item.get('path') === '/metadata/name');
if (!op) fail(`${jobNameFile} has no replace of /metadata/name`);
op.set('value', jobName);

writeFileSync(kustomizationFile, kustomization.toString());
writeFileSync(jobNameFile, patch.toString());
console.log(`${kustomizationFile}: ${IMAGE} -> ${entry.get('newName') ?? IMAGE}:${release}@${digest}\n${jobNameFile}: the migration Job is ${jobName}`);
