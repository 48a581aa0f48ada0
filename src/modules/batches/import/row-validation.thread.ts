/**
 * A thread of the RowValidationPool: checks batch rows' bodies against the register rules
 * (CreateSampleDto, exactly as the validation pipe does) and answers, for each, the DTO the pipe
 * builds (a structured clone of it) or the row's error as the report shows it.
 */
import 'reflect-metadata';
import { parentPort } from 'node:worker_threads';
import { validateBuiltBody } from '../../../core/http/validation';
import { CreateSampleDto } from '../../samples';
import { describeRowError } from './batch-rejected';
import { RowValidationReply, RowValidationRequest, RowVerdict } from './row-validation-pool';

async function verdict(body: Record<string, unknown>): Promise<RowVerdict> {
  try {
    return await validateBuiltBody(CreateSampleDto, body);
  } catch (error) {
    return describeRowError(error); // rethrows what is not a refusal of the row
  }
}

async function answer({ id, bodies }: RowValidationRequest): Promise<RowValidationReply> {
  try {
    const verdicts: RowVerdict[] = [];
    for (const body of bodies) verdicts.push(await verdict(body));
    return { id, verdicts };
  } catch (error) {
    return { id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

parentPort?.on('message', (request: RowValidationRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});
