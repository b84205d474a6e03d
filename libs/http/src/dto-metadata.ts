import { getMetadataStorage, ValidationTypes } from 'class-validator';

/** One class-validator rule on a property (`isString`, `isLength`, `matches`, ...), `each` for array items. */
export interface PropertyRule {
  name: string;
  constraints: unknown[];
  each: boolean;
}

export interface PropertyDescription {
  name: string;
  /** IsOptional: the property may be absent. */
  optional: boolean;
  /** Declared nullable (ApiProperty nullable: true): `null` is a value. Otherwise an optional property may be absent, never null. */
  nullable: boolean;
  /** Only @Allow: any JSON value, passed through untouched. */
  freeForm: boolean;
  /** ValidateNested with a @Type: the nested DTO class. */
  nested?: new () => object;
  rules: PropertyRule[];
}

export type DtoClass = abstract new (...args: never[]) => object;

interface TypeStorage {
  findTypeMetadata(target: unknown, propertyName: string): { typeFunction: () => unknown } | undefined;
}
// class-transformer ships no typings for its metadata storage (the one @Type writes to).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TypeStorage };

const cache = new Map<DtoClass, Map<string, PropertyDescription>>();

/**
 * What class-validator and class-transformer know about a DTO class, by property. The validation pipe
 * and the OpenAPI post-processor both read it: one source for what is accepted and what is documented.
 */
export function describeDto(cls: DtoClass): Map<string, PropertyDescription> {
  const known = cache.get(cls);
  if (known) return known;
  const storage = getMetadataStorage();
  const properties = new Map<string, PropertyDescription>();
  for (const meta of storage.getTargetValidationMetadatas(cls, '', true, false)) {
    const name = meta.propertyName;
    let entry = properties.get(name);
    if (!entry) {
      const swagger = Reflect.getMetadata('swagger/apiModelProperties', cls.prototype as object, name) as
        { nullable?: boolean } | undefined;
      entry = { name, optional: false, nullable: swagger?.nullable === true, freeForm: false, rules: [] };
      properties.set(name, entry);
    }
    if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      entry.optional = true;
    } else if (meta.type === ValidationTypes.NESTED_VALIDATION) {
      const type = defaultMetadataStorage.findTypeMetadata(cls, name);
      const nested = type?.typeFunction() as (new () => object) | undefined;
      if (nested) entry.nested = nested;
    } else if (meta.type === ValidationTypes.WHITELIST) {
      // @Allow: marks the property as known; free-form unless something else constrains it.
    } else {
      const ruleName = meta.constraintCls
        ? (storage.getTargetValidatorConstraints(meta.constraintCls)[0]?.name ?? meta.name ?? meta.type)
        : (meta.name ?? meta.type);
      if (!entry.rules.some((r) => r.name === ruleName && r.each === Boolean(meta.each))) {
        entry.rules.push({ name: ruleName, constraints: meta.constraints ?? [], each: Boolean(meta.each) });
      }
    }
  }
  for (const entry of properties.values()) entry.freeForm = entry.rules.length === 0 && !entry.nested;
  // A free-form property (only @Allow) takes any value, absence included.
  for (const entry of properties.values()) if (entry.freeForm) entry.optional = true;
  cache.set(cls, properties);
  return properties;
}

/** Whether a class carries validation metadata (a DTO). */
export function isDto(cls: unknown): cls is DtoClass {
  return typeof cls === 'function' && describeDto(cls as DtoClass).size > 0;
}
