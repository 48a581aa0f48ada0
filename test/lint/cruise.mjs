// Runs dependency-cruiser's API with the project's import rules (.dependency-cruiser.cjs) on src/
// under the current directory, and prints the violations as JSON: for test/lint/import-rules.spec.ts,
// which cannot load dependency-cruiser (ES modules only) inside jest.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const require = createRequire(import.meta.url);
const { forbidden, options } = require('../../.dependency-cruiser.cjs');

const hasTsConfig = existsSync('tsconfig.json');
const { tsConfig, ...rest } = options;
const result = await cruise(
  ['src'],
  { ...rest, ...(hasTsConfig ? { tsConfig } : {}), validate: true, ruleSet: { forbidden }, outputType: 'json' },
  {},
  hasTsConfig ? { tsConfig: extractTSConfig('tsconfig.json') } : {},
);
const { summary } = JSON.parse(result.output);
process.stdout.write(
  JSON.stringify({
    cruised: summary.totalCruised,
    violations: summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
      cycle: violation.cycle?.map((step) => step.name ?? step),
    })),
  }),
);
