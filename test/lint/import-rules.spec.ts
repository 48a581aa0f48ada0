import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The import rules of .dependency-cruiser.cjs (run by `npm run lint`): they report a circle and an
 * upward import in a small tree made wrong on purpose (fixtures/layered-app), and nothing in src/.
 */
interface Violation {
  rule: string;
  from: string;
  to: string;
  cycle?: string[];
}

const root = join(__dirname, '..', '..');
const run = promisify(execFile);

/** Cruises src/ under `directory` with the project's rules (in a child process: the tool is ES modules only). */
async function violationsIn(directory: string): Promise<{ cruised: number; violations: Violation[] }> {
  const { stdout } = await run(process.execPath, [join(__dirname, 'cruise.mjs')], {
    cwd: directory,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as { cruised: number; violations: Violation[] };
}

// Cruising the whole of src/ parses every file with TypeScript: seconds, more on a loaded machine.
jest.setTimeout(180_000);

describe('import rules', () => {
  let fixture: Violation[];

  beforeAll(async () => {
    fixture = (await violationsIn(join(__dirname, 'fixtures', 'layered-app'))).violations;
  });

  it('report an import circle', () => {
    expect(fixture).toContainEqual(
      expect.objectContaining({
        rule: 'no-circular',
        cycle: expect.arrayContaining([
          'src/modules/agents/agent-identity.ts',
          'src/modules/agents/agent-repository.ts',
        ]) as unknown,
      }),
    );
  });

  it('report an import from core up into a feature module', () => {
    expect(fixture).toContainEqual({
      rule: 'no-upward-import-from-core',
      from: 'src/core/clock.ts',
      to: 'src/modules/samples/sample-kind.ts',
    });
  });

  it('report an import from the samples core up into the metadata formats, but not from its controllers or specs', () => {
    const fromSamples = fixture.filter((violation) => violation.from.startsWith('src/modules/samples/'));
    expect(fromSamples).toEqual([
      {
        rule: 'no-upward-import-from-samples',
        from: 'src/modules/samples/sample-title.ts',
        to: 'src/modules/metadata-formats/title-format.ts',
      },
    ]);
  });

  it('report an import against the order inside a layer, and a module no layer lists', () => {
    expect(fixture).toContainEqual(
      expect.objectContaining({
        rule: 'no-import-from-vocabularies-of-agents',
        from: 'src/modules/vocabularies/platform.ts',
      }),
    );
    expect(fixture).toContainEqual(
      expect.objectContaining({ rule: 'not-in-a-layer', from: 'src/modules/unlisted/stray.ts' }),
    );
  });

  it('report another module importing an inner file of samples/ instead of its public API', () => {
    const inner = fixture.filter((violation) => violation.rule === 'samples-through-its-public-api');
    expect(inner).toContainEqual({
      rule: 'samples-through-its-public-api',
      from: 'src/modules/exports/export-name.ts',
      to: 'src/modules/samples/sample-kind.ts',
    });
    // Through the index is the way in (metadata-formats/title-format.ts imports '../samples').
    expect(inner.map((violation) => violation.from)).not.toContain('src/modules/metadata-formats/title-format.ts');
  });

  it('find nothing wrong in src/', async () => {
    const { cruised, violations } = await violationsIn(root);
    expect(violations).toEqual([]);
    expect(cruised).toBeGreaterThan(100);
  });
});
