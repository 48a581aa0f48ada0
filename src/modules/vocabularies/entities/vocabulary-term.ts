import { Column, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The columns every simple controlled list has (launch types, location and sampling methods,
 * material and platform types): one table a list, each with these columns. Not an entity itself:
 * each list's entity extends it and names its table.
 */
export abstract class VocabularyTerm {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  label: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  uri: string | null;
}
