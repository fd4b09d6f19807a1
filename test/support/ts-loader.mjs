// Node module hooks that let tests spawn real app processes straight from the TypeScript sources:
// `.js` specifiers of our own files resolve to the `.ts` beside them, and `.ts` is transpiled by swc
// with decorator metadata (as Jest does). Used with `--conditions=source` so `#libs/*` maps to .ts.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, URL } from 'node:url';
import swc from '@swc/core';

export async function resolve(specifier, context, next) {
  if (
    specifier.endsWith('.js') &&
    context.parentURL?.endsWith('.ts') &&
    (specifier.startsWith('.') || specifier.startsWith('/'))
  ) {
    const tsUrl = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (existsSync(fileURLToPath(tsUrl))) return { url: tsUrl.href, shortCircuit: true, format: 'module' };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const { code } = await swc.transform(await readFile(path, 'utf8'), {
    filename: path,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      target: 'es2022',
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    },
    module: { type: 'es6' },
  });
  return { format: 'module', source: code, shortCircuit: true };
}
