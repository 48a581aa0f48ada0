import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FilesService } from '../../src/modules/files/files.service';
import { TestUser, createUserWithToken } from '../support/auth';
import { createMediumContext } from '../support/medium';

/**
 * Stored files and the storage quota they are charged to (FilesService over StoredFileRepository
 * and UserRepository): charging under the limit, and expiry giving charged bytes back. Real
 * PostgreSQL.
 */
describe('stored files and storage quota', () => {
  let app: INestApplicationContext;
  let db: DataSource;
  let files: FilesService;
  let first: TestUser;
  let second: TestUser;

  beforeAll(async () => {
    app = await createMediumContext();
    db = app.get(DataSource);
    files = app.get(FilesService);
    first = await createUserWithToken(app);
    second = await createUserWithToken(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const used = async (user: TestUser) =>
    Number((await db.query('SELECT storage_used FROM registry_user WHERE id = $1', [user.userId]))[0].storage_used);

  const store = (owner: TestUser | null, bytes: number, charged: boolean, expiresAt: Date) =>
    files.store({
      filename: 'f.bin',
      contentType: 'application/octet-stream',
      content: Buffer.alloc(bytes),
      ownerUserId: owner?.userId ?? null,
      expiresAt,
      quotaCharged: charged,
    });

  it('charges bytes that fit under the limit and refuses, unchanged, bytes that do not', async () => {
    await db.query('UPDATE registry_user SET storage_used = 0, storage_limit = 100 WHERE id = $1', [first.userId]);
    await expect(db.transaction((manager) => files.chargeStorage(manager, first.userId, 60))).resolves.toBeUndefined();
    await expect(db.transaction((manager) => files.chargeStorage(manager, first.userId, 50))).resolves.toBe(40);
    expect(await used(first)).toBe(60);
    await db.query('UPDATE registry_user SET storage_used = 0, storage_limit = 10737418240 WHERE id = $1', [
      first.userId,
    ]);
  });

  it('removes expired files only, giving each owner back the bytes charged to them, never below zero', async () => {
    await db.query('UPDATE registry_user SET storage_used = $2 WHERE id = $1', [first.userId, 1000]);
    await db.query('UPDATE registry_user SET storage_used = $2 WHERE id = $1', [second.userId, 5]);
    const past = new Date(Date.now() - 60_000);
    const future = new Date(Date.now() + 3_600_000);
    const expired = [
      await store(first, 100, true, past),
      await store(first, 30, true, past),
      await store(first, 7, false, past), // never charged: nothing to give back
      await store(second, 20, true, past), // more than is used: storage_used stops at zero
      await store(null, 11, false, past),
    ];
    const kept = await store(first, 50, true, future);

    const removed = await files.removeExpired(new Date());

    expect(removed).toBeGreaterThanOrEqual(expired.length);
    const left: { id: string }[] = await db.query('SELECT id FROM stored_file WHERE id = ANY($1::uuid[])', [
      [...expired, kept].map((file) => file.id),
    ]);
    expect(left.map((row) => row.id)).toEqual([kept.id]);
    expect(await used(first)).toBe(1000 - 130);
    expect(await used(second)).toBe(0);
  });
});
