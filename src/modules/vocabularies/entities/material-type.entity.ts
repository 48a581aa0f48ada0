import { Column, Entity } from 'typeorm';
import { VocabularyTerm } from './vocabulary-term';

/** A general class of material a sample is made of (rock, sediment, liquid…). */
@Entity('material_type')
export class MaterialType extends VocabularyTerm {
  /** False for deprecated terms: kept for migrated samples and legacy XML, refused in new JSON and batch writes. */
  @Column({ type: 'boolean', default: true })
  forRegistration: boolean;
}
