import {
  OaiError,
  decodeResumptionToken,
  encodeResumptionToken,
  readDatestampRange,
  readOaiRequest,
} from './oai-pmh.request';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return error instanceof OaiError ? error.code : 'not an OaiError';
  }
  return undefined;
};

describe('OAI-PMH requests', () => {
  it('reads a verb with its arguments', () => {
    expect(readOaiRequest({ verb: 'GetRecord', identifier: 'doi:10.5072/X', metadataPrefix: 'oai_dc' })).toEqual({
      verb: 'GetRecord',
      args: { identifier: 'doi:10.5072/X', metadataPrefix: 'oai_dc' },
    });
  });

  it.each([
    [{}, 'badVerb'],
    [{ verb: ['Identify', 'Identify'] }, 'badVerb'],
    [{ verb: 'identify' }, 'badVerb'],
    [{ verb: 'GetRecord', identifier: 'x' }, 'badArgument'],
    [{ verb: 'ListSets', set: 'x' }, 'badArgument'],
    [{ verb: 'ListIdentifiers', metadataPrefix: ['a', 'b'] }, 'badArgument'],
    [{ verb: 'ListIdentifiers', resumptionToken: 't', set: 'x' }, 'badArgument'],
  ])('refuses %j with %s', (input, code) => {
    expect(codeOf(() => readOaiRequest(input))).toBe(code);
  });

  it('turns an inclusive until into an exclusive bound at the granularity given', () => {
    expect(readDatestampRange('2024-01-01', '2024-01-31')).toEqual({
      from: new Date('2024-01-01T00:00:00Z'),
      before: new Date('2024-02-01T00:00:00Z'),
    });
    expect(readDatestampRange(undefined, '2024-01-31T10:00:00Z')).toEqual({
      from: undefined,
      before: new Date('2024-01-31T10:00:01Z'),
    });
    for (const [from, until] of [
      ['2024-02-30', undefined],
      ['2024-01-01T24:00:00Z', undefined],
      ['2024-01-01T10:00:00+01:00', undefined],
      ['2024-01-02', '2024-01-01'],
    ]) {
      expect(codeOf(() => readDatestampRange(from, until))).toBe('badArgument');
    }
  });

  it('reads back the tokens it writes and refuses anything else', () => {
    const state = {
      metadataPrefix: 'oai_dc' as const,
      set: 'IEABC',
      after: { datestampKey: '2026-01-01 10:00:00.123456+00', id: '42' },
      cursor: 100,
    };
    expect(decodeResumptionToken(encodeResumptionToken(state))).toEqual({
      ...state,
      from: undefined,
      until: undefined,
    });
    for (const token of ['', 'a b', encodeResumptionToken({ ...state, cursor: -1 }), 'e30']) {
      expect(codeOf(() => decodeResumptionToken(token))).toBe('badResumptionToken');
    }
  });
});
