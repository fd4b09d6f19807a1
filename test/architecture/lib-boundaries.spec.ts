import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

/**
 * Import boundaries between libs that the lint rules cannot state. `libs/routing` is pure ranking
 * (DESIGN.md: routing is tested with plain fixtures), so nothing in it, tests included, may reach
 * Redis or Postgres; its Redis side is `libs/routing-stores`, which builds on it and on
 * `#libs/redis` only.
 */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** What a pure lib may not import: the I/O packages and libs, by alias or by a relative path. */
const IO_PACKAGES = ['ioredis', 'pg', 'kysely', 'bullmq'];
const IO_LIBS = ['redis', 'db', 'routing-stores'];
const ROUTING_FORBIDDEN = ['ioredis', '#libs/redis', '#libs/db', '#libs/routing-stores'];

const isTest = (file: string): boolean => /\.(spec|int-spec|e2e-spec)\.ts$/.test(file);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Module specifiers of a source text, as the compiler reads them: static and type-only imports,
 * `export ... from`, `import()` and `require()`; comments and strings are not imports.
 */
const specifiersOf = (text: string): string[] =>
  ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => fileName);

/** As `specifiersOf`, a relative one turned into a repository path (`libs/redis/index.js`) to match it too. */
function importsOf(text: string, file: string): string[] {
  return specifiersOf(text).map((spec) =>
    spec.startsWith('.') ? relative(repoRoot, resolve(dirname(file), spec)) : spec,
  );
}

const matches = (specifier: string, name: string): boolean =>
  specifier === name || specifier.startsWith(`${name}/`);

/** The imports of `file` that the pure routing lib must not have. */
function routingViolations(text: string, file: string): string[] {
  return importsOf(text, file).filter(
    (spec) =>
      ROUTING_FORBIDDEN.some((name) => matches(spec, name)) ||
      IO_LIBS.some((lib) => matches(spec, `libs/${lib}`)),
  );
}

const libOf = (spec: string): string | undefined => /^#libs\/([^/]+)/.exec(spec)?.[1];

/** `#libs/<name>` imports of a lib's runtime files (tests excluded), and its package imports. */
function runtimeImports(lib: string): { libs: Set<string>; packages: Set<string> } {
  const libs = new Set<string>();
  const packages = new Set<string>();
  for (const file of tsFiles(join(repoRoot, 'libs', lib)).filter((f) => !isTest(f))) {
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      const name = libOf(spec);
      if (name !== undefined) libs.add(name);
      else if (!spec.startsWith('.') && !spec.startsWith('node:')) packages.add(spec);
    }
  }
  return { libs, packages };
}

const routingFiles = tsFiles(join(repoRoot, 'libs/routing'));

describe('libs/routing does no I/O', () => {
  it('scans every file of the lib, tests included', () => {
    const names = routingFiles.map((f) => relative(repoRoot, f));
    expect(names).toEqual(
      expect.arrayContaining(['libs/routing/index.ts', 'libs/routing/src/health-book.ts']),
    );
    expect(names.some(isTest)).toBe(true);
  });

  it('no file imports ioredis, #libs/redis, #libs/db or #libs/routing-stores', () => {
    const found = routingFiles.flatMap((file) =>
      routingViolations(readFileSync(file, 'utf8'), file).map(
        (spec) => `${relative(repoRoot, file)}: ${spec}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('nor does any lib it depends on, however indirectly', () => {
    // A lib's index re-exports all of it, so importing a lib loads every runtime file in it.
    const reached = new Set<string>(['routing']);
    const ioPackages: string[] = [];
    for (const lib of reached) {
      const { libs, packages } = runtimeImports(lib);
      const io = [...packages].filter((pkg) => IO_PACKAGES.some((name) => matches(pkg, name)));
      ioPackages.push(...io.map((pkg) => `${lib}: ${pkg}`));
      for (const next of libs) reached.add(next);
    }
    const ioLibs = [...reached].filter((lib) => IO_LIBS.includes(lib));
    expect({ ioLibs, ioPackages }).toEqual({ ioLibs: [], ioPackages: [] });
  });

  it('the check catches every way of importing I/O (so an empty result means something)', () => {
    const file = join(repoRoot, 'libs/routing/src/example.ts');
    const text = [
      "import { type Redis } from 'ioredis';",
      "import type { RedisKeys } from '#libs/redis';",
      "export * from '#libs/db';",
      "const keys = await import('#libs/redis/src/keys.js');",
      "import { appendSamples } from '../../routing-stores/index.js';",
      "// import x from 'ioredis' (a comment)",
      "import { type RouteTable } from './route-table.js';",
      "import { type Catalog } from '#libs/config';",
    ].join('\n');
    expect(routingViolations(text, file)).toEqual([
      'ioredis',
      '#libs/redis',
      '#libs/db',
      '#libs/redis/src/keys.js',
      'libs/routing-stores/index.js',
    ]);
  });
});

describe('libs/routing-stores', () => {
  it('builds on #libs/routing and #libs/redis only', () => {
    expect([...runtimeImports('routing-stores').libs].sort()).toEqual(['redis', 'routing']);
  });
});

describe('libs/providers', () => {
  // A vendor's platform credential (`<vendor>/credential.ts`) builds on its cloud's SDK and on
  // #libs/credentials; the descriptor loads it with import() when a provider uses it, so those
  // files are the lib's only way to them and no other file imports one statically.
  const isCredential = (file: string): boolean => file.endsWith('/credential.ts');

  it('reaches no telemetry SDK, credentials or I/O lib: every app and most tests load it, so it stays light', () => {
    const reached = new Set<string>(['providers']);
    for (const lib of reached)
      for (const next of valueImports(join('libs', lib), lib === 'providers' ? isCredential : undefined).libs)
        reached.add(next);
    expect([...reached].sort()).toEqual(['config', 'protocol', 'providers']);
  });

  it('loads a credential file only by import(), never statically', () => {
    const files = tsFiles(join(repoRoot, 'libs/providers')).filter((f) => !isTest(f));
    expect(files.filter(isCredential).length).toBeGreaterThanOrEqual(3);
    const static_ = files.flatMap((file) =>
      valueImportsOf(readFileSync(file, 'utf8'))
        .filter((spec) => spec.endsWith('/credential.js'))
        .map((spec) => `${relative(repoRoot, file)}: ${spec}`),
    );
    expect(static_).toEqual([]);
  });
});

/** Packages of hundreds of modules that an app loads only when it needs them, by `import()`. */
const LOADED_ON_USE = [
  '@nestjs/swagger',
  '@azure/identity',
  'google-auth-library',
  '@aws-sdk/credential-providers',
];

describe('the data-plane apps boot light', () => {
  it.each(['edge', 'router', 'worker'])(
    '%s imports no API-description or cloud-identity library up front',
    (app) => {
      const reachedLibs = new Set<string>();
      const packages = new Set<string>();
      const dirs = [join('apps', app, 'src')];
      for (const dir of dirs) {
        const found = valueImports(dir);
        for (const pkg of found.packages) packages.add(pkg);
        for (const lib of found.libs)
          if (!reachedLibs.has(lib)) {
            reachedLibs.add(lib);
            dirs.push(join('libs', lib));
          }
      }
      expect(reachedLibs.size).toBeGreaterThan(5);
      expect([...packages].filter((pkg) => LOADED_ON_USE.some((name) => matches(pkg, name)))).toEqual([]);
    },
  );

  it('the scan tells a type import and an import() from an import that loads the package', () => {
    const text = [
      "import { type TokenCredential } from '@azure/identity';",
      "import type { AuthClient } from 'google-auth-library';",
      "const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');",
      "import { ApiExcludeController } from '@nestjs/swagger';",
      "export { x } from '#libs/protocol';",
    ].join('\n');
    expect(valueImportsOf(text)).toEqual(['@nestjs/swagger', '#libs/protocol']);
  });
});

const scanned = new Map<string, { libs: Set<string>; packages: Set<string> }>();

/** What the runtime files under `dir` load: `#libs/<name>` and packages (type-only imports load nothing). */
function valueImports(
  dir: string,
  skip?: (file: string) => boolean,
): { libs: Set<string>; packages: Set<string> } {
  const key = skip === undefined ? dir : `${dir} (some files skipped)`;
  const known = scanned.get(key);
  if (known !== undefined) return known;
  const libs = new Set<string>();
  const packages = new Set<string>();
  for (const file of tsFiles(join(repoRoot, dir)).filter((f) => !isTest(f) && !(skip?.(f) ?? false))) {
    for (const spec of valueImportsOf(readFileSync(file, 'utf8'))) {
      const lib = libOf(spec);
      if (lib !== undefined) libs.add(lib);
      else if (!spec.startsWith('.') && !spec.startsWith('node:')) packages.add(spec);
    }
  }
  scanned.set(key, { libs, packages });
  return { libs, packages };
}

/**
 * The specifiers of a source's static `import`/`export ... from` statements that load a value
 * (verbatimModuleSyntax is off, so an import of types only is erased); `import()` is not counted.
 */
function valueImportsOf(text: string): string[] {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    const spec = loadedSpecifier(statement);
    return spec === undefined ? [] : [spec];
  });
}

function loadedSpecifier(statement: ts.Statement): string | undefined {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    const typesOnly =
      clause !== undefined &&
      (clause.isTypeOnly ||
        (clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly)));
    return typesOnly ? undefined : (statement.moduleSpecifier as ts.StringLiteral).text;
  }
  if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly)
    return (statement.moduleSpecifier as ts.StringLiteral).text;
  return undefined;
}
