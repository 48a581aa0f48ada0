import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../../core/http/api-error';
import { ObjectType } from './entities/object-type.entity';
import { VocabularyRepository } from './vocabulary.repository';

export interface ObjectTypeResolveOptions {
  /** The field errors are reported under; default `object_type`. */
  field?: string;
  manager?: EntityManager;
}

/** `A>B >  C` → `A > B > C`, the form hierarchical labels are stored in. */
export function normalisePath(path: string): string {
  return path
    .split('>')
    .map((part) => part.trim())
    .join(' > ');
}

/**
 * Turns the `object_type` a client sends into a vocabulary row: the leaf label (the last part of the
 * path, e.g. `Thin section`) or the full path (`Analytical preparations > Sectioned specimen > Thin
 * section`), case-insensitively. Legacy numeric ids are refused: they name rows of an older
 * vocabulary that no longer exists.
 */
@Injectable()
export class ObjectTypeResolver {
  constructor(private readonly vocabularyRepository: VocabularyRepository) {}

  async resolve(value: unknown, options: ObjectTypeResolveOptions = {}): Promise<ObjectType> {
    const field = options.field ?? 'object_type';
    if (typeof value === 'number' || (typeof value === 'string' && /^\s*\d+\s*$/.test(value))) {
      throw ApiError.invalidField(
        field,
        'numeric object type ids are not accepted; use the leaf label of the object type, e.g. "Core"',
      );
    }
    if (typeof value !== 'string' || !value.trim()) {
      throw ApiError.invalidField(field, 'must be the leaf label of an object type, e.g. "Core"');
    }
    const given = value.trim();
    const found = given.includes('>')
      ? await this.vocabularyRepository.objectTypeByPath(normalisePath(given), options.manager)
      : await this.vocabularyRepository.findByLabel(ObjectType, given, options.manager);
    if (!found) {
      throw ApiError.invalidField(
        field,
        `unknown object type "${given}"; use the leaf label of an object type from GET /api/object-types/`,
      );
    }
    return found;
  }

  /**
   * Several labels or paths at once, in one statement (search filters); each is checked as
   * resolve() checks one, and the first unknown one is the 400. In the order given.
   */
  async resolveMany(values: string[], options: ObjectTypeResolveOptions = {}): Promise<ObjectType[]> {
    const field = options.field ?? 'object_type';
    const given = values.map((value) => value.trim());
    const numeric = given.find((value) => /^\d+$/.test(value));
    if (numeric !== undefined) await this.resolve(numeric, options); // throws its 400
    const paths = given.filter((value) => value.includes('>')).map(normalisePath);
    const labels = given.filter((value) => !value.includes('>'));
    const found = await this.vocabularyRepository.objectTypesByLabelsOrPaths(labels, paths, options.manager);
    return given.map((value) => {
      const key = value.includes('>') ? `path:${normalisePath(value).toLowerCase()}` : `label:${value.toLowerCase()}`;
      const objectType = found.get(key);
      if (!objectType) {
        throw ApiError.invalidField(
          field,
          `unknown object type "${value}"; use the leaf label of an object type from GET /api/object-types/`,
        );
      }
      return objectType;
    });
  }

  /** By id, for references that legitimately carry one (e.g. a batch template's object type); null when unknown. */
  findById(id: number, manager?: EntityManager): Promise<ObjectType | null> {
    return this.vocabularyRepository.objectTypeById(id, manager);
  }
}
