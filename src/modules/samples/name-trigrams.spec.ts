import { NameTrigramFrequencies, termWindows } from './name-trigrams';

/** Frequencies as a sample of 10,000 names of a 1,000,000-sample table would give them. */
function frequencies(counts: Record<string, number>): NameTrigramFrequencies {
  return new NameTrigramFrequencies(1_000_000, 10_000, new Map(Object.entries(counts)));
}

describe('termWindows', () => {
  it('takes every three letters or digits inside a word, never across a space or other character', () => {
    expect(termWindows('core 2019-0012').map((window) => window.trigram)).toEqual([
      'cor',
      'ore',
      '201',
      '019',
      '001',
      '012',
    ]);
    expect(termWindows('ab c_d%e')).toEqual([]);
  });

  it('leaves out non-ASCII characters, whose trigrams pg_trgm shows only as hashes', () => {
    expect(termWindows('río tinto').map((window) => window.trigram)).toEqual(['tin', 'int', 'nto']);
  });
});

describe('NameTrigramFrequencies.narrowing', () => {
  const counts = {
    cor: 1_000,
    ore: 1_100,
    tro: 250,
    roo: 260,
    ood: 250,
    odo: 250,
    dos: 250,
    '201': 10_000,
    '019': 1_400,
    '000': 25,
  };

  it('asks for the rarest trigram of each word while its list costs less than the rows it rules out', () => {
    // Troodos first (1 name in 40), then core and 2019; `201` is in every name and would rule out nothing.
    expect(frequencies(counts).narrowing('core troodos 2019')).toEqual(['tro', 'cor', '019']);
  });

  it('stops once the candidates left are fewer than a list would cost to read', () => {
    // 25 in 10,000 and 1 in 40: ~60 candidates left, cheaper to check than 2019's 140,000 postings.
    expect(frequencies(counts).narrowing('troodos 2019-000')).toEqual(['000', 'tro']);
  });

  it('takes one trigram of a word: the others of it mostly come with it', () => {
    expect(frequencies(counts).narrowing('troodos')).toEqual(['tro']);
  });

  it('counts a trigram missing from the sample as rare, needing no other', () => {
    expect(frequencies(counts).narrowing('core xyzzy')).toEqual(['xyz']);
  });

  it('asks for at most four trigrams', () => {
    const words = 'aaa bbb ccc ddd eee fff';
    const many = Object.fromEntries(words.split(' ').map((word) => [word, 3_000]));
    expect(frequencies(many).narrowing(words)).toHaveLength(4);
  });

  it("leaves a term of one trigram, or none, to the whole term's LIKE", () => {
    expect(frequencies(counts).narrowing('cor')).toBeUndefined();
    expect(frequencies(counts).narrowing('co re')).toBeUndefined();
    expect(frequencies(counts).narrowing('%_ ')).toBeUndefined();
  });
});

describe('NameTrigramFrequencies.publicMatches', () => {
  const counts = { cor: 1_000, ore: 1_100, tro: 250, roo: 260, ood: 250, odo: 250, dos: 250, '201': 10_000 };
  const sampled = new NameTrigramFrequencies(
    1_000_000,
    10_000,
    new Map(Object.entries({ ...counts, '019': 1_400, bas: 330 })),
    8_000,
  );

  it('is the public rows times the shares of the trigrams the index is asked for', () => {
    // 800,000 public rows × 1/40 × 1/10 × 0.14
    expect(sampled.publicMatches('core troodos 2019')).toBe(280);
  });

  it("is the public rows times the share of a term's one trigram", () => {
    expect(sampled.publicMatches('bas')).toBe(26_400);
  });

  it('is unknown for a term with no trigram', () => {
    expect(sampled.publicMatches('co re')).toBeUndefined();
  });
});
