// Jest runs in its ESM mode (NestJS 12 ships ESM only); swc strips types and emits decorator
// metadata. Type checking is `npm run typecheck`, not the test run.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      target: 'es2022',
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    },
    module: { type: 'es6' },
  },
];

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // `source` makes `#libs/*` resolve to the TypeScript sources instead of dist/.
  testEnvironmentOptions: { customExportConditions: ['source', 'node', 'node-addons'] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': swc },
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/scripts', '<rootDir>/bench'],
};

/** @type {import('jest').Config} */
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['**/*.int-spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeouts.ts'],
    },
  ],
};
