/*
 * Which trigrams of a `q` term the name's trigram index should be asked for (issue 23 §6).
 *
 * A substring search on the trigram index (`lower(name) LIKE '%core troodos 2019%'`) makes GIN
 * intersect the posting lists of every trigram of the term, padded ones included (` 20`, `  2`…):
 * at 1,000,000 names that is millions of postings decoded for a few hundred matches, most of the
 * cost of a multi-word search. Any substring of the term is a necessary condition of a match, so
 * the index can be asked for a few rare trigrams of the term instead, and the rows it returns
 * checked against the whole term (`strpos`): the same answer, a fraction of the postings. Which
 * trigrams: the rarest of each word of the term, added (rarest first) while a list costs less to read than the
 * rows it would rule out cost to check, with frequencies from a sample of the names
 * (SampleSearchRepository.nameTrigramSample, refreshed by SampleNameStatistics). See
 * docs/decisions/0014-text-search-on-rare-trigrams.md.
 */

/**
 * Reading one posting of a trigram's list against checking one candidate row (its heap page and the
 * whole term): measured at 1,000,000 samples, ~12 ns a posting and 2-12 µs a row.
 */
const ROW_CHECK_PER_POSTING = 300;
/** At most this many trigrams are asked for: each is a posting list read in full. */
const MAX_TRIGRAMS = 4;

/** A window of three characters of the term, where the term has it. */
interface Window {
  trigram: string;
  /** Which word of the term it is in, and where in that word. */
  word: number;
  at: number;
  /** The share of names containing it (from the sample). */
  share: number;
}

/**
 * The trigrams a LIKE condition may use for `lowered`: three consecutive ASCII letters or digits of
 * it (a word's inside, as pg_trgm indexes it; pg_trgm shows other characters' trigrams only as
 * hashes, so their frequencies are unknown), each with its word and position.
 */
export function termWindows(lowered: string): { trigram: string; word: number; at: number }[] {
  const windows: { trigram: string; word: number; at: number }[] = [];
  lowered.split(/[^a-z0-9]+/).forEach((word, index) => {
    for (let at = 0; at + 3 <= word.length; at++) windows.push({ trigram: word.slice(at, at + 3), word: index, at });
  });
  return windows;
}

/**
 * How often each trigram occurs in the names, from a sample of them: `names` names were read and
 * `counts` says how many held each trigram (trigrams held by at most one are left out of it).
 * `rows`: how many samples the table holds, estimated; `publicNames`: how many of the names read
 * were of samples the public may see.
 */
export class NameTrigramFrequencies {
  constructor(
    readonly rows: number,
    readonly names: number,
    private readonly counts: ReadonlyMap<string, number>,
    readonly publicNames = names,
  ) {}

  /**
   * How many public samples' names contain `lowered`, estimated: the table's public rows times the
   * shares of the trigrams the index is asked for (narrowing), or of the term's one trigram;
   * undefined for a term with none (nothing to estimate from).
   */
  publicMatches(lowered: string): number | undefined {
    const windows = termWindows(lowered);
    if (!windows.length) return undefined;
    const trigrams = this.narrowing(lowered) ?? [windows[0].trigram];
    const publicRows = (this.rows * this.publicNames) / Math.max(this.names, 1);
    return Math.round(trigrams.reduce((matches, trigram) => matches * this.share(trigram), publicRows));
  }

  /** The share of names holding `trigram`; one left out of the sample counts as held by half a name. */
  share(trigram: string): number {
    return (this.counts.get(trigram) ?? 0.5) / Math.max(this.names, 1);
  }

  /**
   * The trigrams to ask the index for, rarest first, or undefined when the whole term's LIKE is as
   * good (a term with one trigram, or none the index can use alone).
   */
  narrowing(lowered: string): string[] | undefined {
    const windows: Window[] = termWindows(lowered).map((window) => ({ ...window, share: this.share(window.trigram) }));
    if (windows.length <= 1) return undefined;
    windows.sort((a, b) => a.share - b.share || a.word - b.word || a.at - b.at);
    const chosen: Window[] = [windows[0]];
    let candidates = this.rows * windows[0].share;
    for (const window of windows.slice(1)) {
      if (chosen.length === MAX_TRIGRAMS) break;
      // The trigrams of one word mostly come together (`tro` and `dos` of Troodos): one a word.
      if (chosen.some((other) => other.word === window.word || other.trigram === window.trigram)) continue;
      const listCost = this.rows * window.share;
      const saved = candidates * (1 - window.share) * ROW_CHECK_PER_POSTING;
      if (listCost >= saved) continue;
      chosen.push(window);
      candidates *= window.share;
    }
    return chosen.map((window) => window.trigram);
  }
}
