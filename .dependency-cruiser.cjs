/**
 * The import graph's rules (`npm run lint`, and test/lint/import-rules.spec.ts): no import circles,
 * and no import from a lower layer into a higher one. Layers from the top; a file may import its
 * own layer and the layers below it. Every file under src/ must be in a layer: a new module is
 * added to the list below, at the height of what it imports.
 *
 * Within a layer modules may import each other (no file circles still holds). Spec files beside the
 * code may cross layers: they check that two layers agree (batch columns and sample fields).
 */

/** Paths under src/ of the feature modules named. */
const modules = (...names) => names.map((name) => `^src/modules/${name}/`);

/** Samples' controllers and its module file: the HTTP edge of the samples feature. */
const SAMPLES_HTTP_EDGE = '^src/modules/samples/.*[.](controller|module)[.]ts$';

const LAYERS = [
  {
    name: 'entry points',
    why: 'main, worker, cli, write-openapi and the root modules wire everything together',
    paths: ['^src/[^/]+\\.ts$', '^src/cli/'],
  },
  {
    name: 'adapters',
    why: 'channels and integrations built on the samples core: XML, batches, exports, pages, DataCite…',
    paths: modules(
      'legacy-xml',
      'batches',
      'exports',
      'landing-pages',
      'harvesting',
      'labels',
      'datacite',
      'related-resources',
      'reservations',
      'transfers',
      'account-pages',
      'account-requests',
    ),
  },
  {
    name: 'samples HTTP edge',
    why: "samples' controllers and its module: they answer GET /samples/{igsn} in every metadata format",
    paths: [SAMPLES_HTTP_EDGE],
  },
  {
    name: 'metadata formats',
    why: 'serialise a SampleDto (DataCite, JSON-LD, CSV); adapters and the samples HTTP edge use them',
    paths: modules('metadata-formats'),
  },
  {
    name: 'samples',
    why: 'the samples core: DTOs, search, writes, reads, the access policy',
    paths: ['^src/modules/samples/'],
    pathNot: [SAMPLES_HTTP_EDGE],
  },
  {
    name: 'shared services',
    why: 'what samples and adapters build on: sign-in, stored files, background jobs, notices, site assets',
    paths: modules('auth', 'files', 'background-jobs', 'notifications', 'web-assets'),
  },
  {
    name: 'people and reference data',
    why: 'accounts and teams, people and organisations, controlled lists: the records everything names',
    paths: modules('accounts', 'agents', 'vocabularies'),
  },
  {
    name: 'core',
    why: 'plumbing every feature uses; never imports a module or the app',
    paths: ['^src/core/'],
  },
];

const SPEC = '\\.spec\\.ts$';

/**
 * One rule a layer: its files must not import a file of any layer above. A layer's pathNot carves
 * files out of it for a layer ABOVE it (the samples HTTP edge out of samples), so the union of the
 * higher layers' paths is exactly "above".
 */
const upwardRules = LAYERS.slice(1).map((layer, index) => {
  const higher = LAYERS.slice(0, index + 1);
  return {
    name: `no-upward-import-from-${layer.name.replace(/\W+/g, '-')}`,
    comment: `${layer.name} (${layer.why}) must not import from the layers above it: ${higher.map((h) => h.name).join(', ')}`,
    severity: 'error',
    from: { path: layer.paths, pathNot: [...(layer.pathNot ?? []), SPEC] },
    to: { path: higher.flatMap((h) => h.paths) },
  };
});

/**
 * Orders inside a layer, where the modules' own graph has one: `lower` must not import `higher`.
 * (People and reference data as a whole have none yet: accounts -> agents -> vocabularies -> accounts.)
 */
const WITHIN_LAYER = [
  {
    lower: 'vocabularies',
    higher: 'agents',
    why: 'agents build on the shared-record code in vocabularies/common, never the other way',
  },
];

const withinLayerRules = WITHIN_LAYER.map(({ lower, higher, why }) => ({
  name: `no-import-from-${lower}-of-${higher}`,
  comment: `${lower} must not import ${higher}: ${why}`,
  severity: 'error',
  from: { path: modules(lower), pathNot: SPEC },
  to: { path: modules(higher) },
}));

const ALL_LAYER_PATHS = LAYERS.flatMap((layer) => layer.paths);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle: move what both sides need into a leaf file that imports neither.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-in-a-layer',
      comment: 'Every file under src/ belongs to a layer: add its module to LAYERS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: ALL_LAYER_PATHS },
      to: {},
    },
    {
      name: 'imports-a-file-in-no-layer',
      comment: 'Every file under src/ belongs to a layer: add its module to LAYERS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: ALL_LAYER_PATHS },
    },
    {
      name: 'samples-through-its-public-api',
      comment:
        'Other modules use the samples core through src/modules/samples/index.ts (and samples.module.ts to ' +
        'import the Nest module), never its inner files: export what you need from the index.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/modules/samples/', SPEC] },
      to: { path: '^src/modules/samples/', pathNot: ['^src/modules/samples/(index|samples[.]module)[.]ts$'] },
    },
    ...upwardRules,
    ...withinLayerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    // Type-only imports count: a circle of types is still a circle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
