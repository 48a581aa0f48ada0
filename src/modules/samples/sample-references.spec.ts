import { EntityManager } from 'typeorm';
import { SampleReferences } from './sample-references';

/** SampleReferences whose own lookups answer with the question they were asked, counting the asks. */
function references() {
  const asked: string[] = [];
  const refs = Object.create(SampleReferences.prototype) as SampleReferences;
  const answer = (...parts: unknown[]) => {
    const question = JSON.stringify(parts);
    asked.push(question);
    return Promise.resolve(question);
  };
  Object.assign(refs, {
    termLabel: (vocabulary: string, label: string | null, field: string) => answer('term', vocabulary, label, field),
    archiveId: (input: object, field: string) => answer('archive', input, field),
    registryCode: (given: string | undefined) => answer('code', given),
  });
  return { memoized: refs.memoized(), asked };
}

const manager = {} as EntityManager;

describe('SampleReferences.memoized', () => {
  it('asks each distinct question once, and never answers one question with another’s answer', async () => {
    const { memoized, asked } = references();
    const questions: [string, string | null, string][] = [
      ['material', 'Rock', 'material'],
      ['material', 'Rock', 'material'], // asked again: remembered
      ['material:Rock', 'x', 'f'], // strings whose plain concatenations would collide with the next
      ['material', 'Rock:x', 'f'],
      ['material', null, 'f'],
      ['material', 'null', 'f'],
      ['material', '', 'f'],
    ];
    for (const [vocabulary, label, field] of questions) {
      const got = await memoized.termLabel(vocabulary as never, label, field, manager);
      expect(got).toBe(JSON.stringify(['term', vocabulary, label, field]));
    }
    expect(asked).toHaveLength(6);

    expect(await memoized.registryCode(undefined, {} as never, manager)).toBe(JSON.stringify(['code', undefined]));
    expect(await memoized.registryCode('undefined', {} as never, manager)).toBe(JSON.stringify(['code', 'undefined']));
    // An object in the question: keyed by its JSON.
    const archive = { name: 'Core store' };
    expect(await memoized.archiveId(archive as never, 'archive', 1, manager)).toBe(
      JSON.stringify(['archive', archive, 'archive']),
    );
    await memoized.archiveId({ name: 'Core store' } as never, 'archive', 1, manager);
    expect(asked).toHaveLength(9);
  });
});
