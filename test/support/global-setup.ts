import { prepareDatabase } from '../../src/core/database/prepare-database';
import { RUN_ID_VARIABLE, newRunId, testConfig } from './test-environment';

/** Creates this run's database and applies every migration once, as a real start-up would. */
export default async function globalSetup(): Promise<void> {
  process.env[RUN_ID_VARIABLE] = newRunId();
  await prepareDatabase(testConfig());
}
