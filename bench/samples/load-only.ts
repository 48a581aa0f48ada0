import 'reflect-metadata';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { dropDatabase } from '../lib/bench-database';
import { generateSamples } from './generate';
import { SAMPLES_PER_CODE, benchConfig, benchSettings, ensureRegistrant, openBenchContext } from './setup';

async function main(): Promise<void> {
  const settings = benchSettings();
  const config = benchConfig(settings);
  await dropDatabase(settings.databaseUrl);
  await prepareDatabase(config);
  const nest = await openBenchContext(config);
  const registrant = await ensureRegistrant(nest, settings.samples);
  const generated = await generateSamples(settings.databaseUrl, {
    count: settings.samples,
    ownerUserId: registrant.userId,
    registryCodes: registrant.codes,
    perCode: SAMPLES_PER_CODE,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`generated in ${generated.seconds.toFixed(0)} s\n`);
  await nest.close();
}
void main();
