import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';

const SUFFIX_PATTERN = /^[A-Z0-9.-]{9,32}$/;
/** The digits of a minted counter. */
export const BASE36_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The minted suffix: the code followed by a base-36 counter, zero-padded to 9 characters. */
export function formatMintedSuffix(code: string, counter: number): string {
  const width = 9 - code.length;
  let digits = '';
  let rest = counter;
  do {
    digits = BASE36_DIGITS[rest % 36] + digits;
    rest = Math.floor(rest / 36);
  } while (rest > 0);
  if (digits.length > width) throw new RangeError('counter exceeds the code namespace');
  return code + digits.padStart(width, '0');
}

/** The counter whose minted suffix under `code` is `suffix` (its inverse: formatMintedSuffix). */
export function counterOfSuffix(code: string, suffix: string): number {
  return parseInt(suffix.slice(code.length), 36);
}

export function namespaceCapacity(code: string): number {
  return 36 ** (9 - code.length) - 1;
}

/**
 * IGSN syntax and minting (CONTRACT §2). The stored form is the bare upper-case suffix; clients may
 * send or look up the DOI form (`10.5072/IEABC0001`), the bare suffix, in any letter case.
 */
@Injectable()
export class IgsnService {
  constructor(@InjectAppConfig() private readonly config: AppConfig) {}

  get doiPrefix(): string {
    return this.config.igsn.doiPrefix;
  }

  /** The minting prefix, then every other prefix lookups accept (config `igsn.doiPrefixes`). */
  get acceptedDoiPrefixes(): string[] {
    const { doiPrefix, doiPrefixes } = this.config.igsn;
    return [doiPrefix, ...doiPrefixes.filter((prefix) => prefix !== doiPrefix)];
  }

  toDoi(suffix: string): string {
    return `${this.config.igsn.doiPrefix}/${suffix}`;
  }

  /** The suffix of `value` when it starts with one of the accepted DOI prefixes and a slash; else undefined. */
  withoutDoiPrefix(value: string): string | undefined {
    const slash = value.indexOf('/');
    if (slash < 0 || !this.acceptedDoiPrefixes.includes(value.slice(0, slash))) return undefined;
    return value.slice(slash + 1);
  }

  /**
   * The stored suffix for a lookup value, or undefined when it cannot be an IGSN of this registry.
   * The DOI form may carry any accepted prefix (IGSN_DOI_PREFIXES), not only the minting one.
   */
  parse(value: string): string | undefined {
    let candidate = value.trim();
    if (candidate.includes('/')) {
      const suffix = this.withoutDoiPrefix(candidate);
      if (suffix === undefined) return undefined;
      candidate = suffix;
    }
    const upper = candidate.toUpperCase();
    return SUFFIX_PATTERN.test(upper) ? upper : undefined;
  }

  /** A caller-supplied IGSN for a sample under `registryCode`: syntax and namespace checked (400). */
  parseSupplied(value: string, registryCode: string, field = 'igsn'): string {
    const suffix = this.parse(value);
    if (!suffix) {
      throw ApiError.invalidField(
        field,
        `must be 9-32 characters of A-Z, 0-9, "." or "-", optionally prefixed with ${this.config.igsn.doiPrefix}/`,
      );
    }
    if (!suffix.startsWith(registryCode)) {
      throw ApiError.invalidField(field, `must start with the registry code ${registryCode}`);
    }
    return suffix;
  }
}
