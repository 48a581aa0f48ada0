import { ApiError } from '../../../core/http/api-error';

/**
 * What the rows of one file claim for themselves, in file order: names (case-insensitively),
 * external sample ids and supplied IGSNs are each unique within the file, as they are among stored
 * samples (which the write rules check for each row).
 */
export class RowClaims {
  private readonly rowOfName = new Map<string, number>();
  private readonly rowOfExternalId = new Map<string, number>();
  private readonly rowOfIgsn = new Map<string, number>();

  claimName(name: string, rowNumber: number): void {
    const key = name.toLowerCase();
    const earlier = this.rowOfName.get(key);
    if (earlier !== undefined) {
      throw ApiError.conflict('Duplicate name.', { name: [`duplicates the name in row ${earlier}`] });
    }
    this.rowOfName.set(key, rowNumber);
  }

  claimExternalId(externalId: string | null | undefined, rowNumber: number): void {
    if (!externalId) return;
    const earlier = this.rowOfExternalId.get(externalId);
    if (earlier !== undefined) {
      throw ApiError.conflict('Duplicate external sample id.', {
        external_sample_id: [`duplicates the external sample id in row ${earlier}`],
      });
    }
    this.rowOfExternalId.set(externalId, rowNumber);
  }

  /** A new sample's supplied IGSN (the stored IGSNs an update names are checked by sample). */
  claimIgsn(igsn: string, rowNumber: number): void {
    const earlier = this.rowOfIgsn.get(igsn);
    if (earlier !== undefined) {
      throw ApiError.conflict('Duplicate IGSN.', { igsn: [`duplicates the IGSN in row ${earlier}`] });
    }
    this.rowOfIgsn.set(igsn, rowNumber);
  }
}
