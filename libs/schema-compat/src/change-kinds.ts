/**
 * The codes of a kind of change: `narrowed` when the new schema accepts less than the old one in that
 * respect, `widened` when it accepts more. Undecidable kinds use one code for both.
 */
export interface ChangeKind {
  readonly narrowed: string;
  readonly widened: string;
}

const kind = (narrowed: string, widened: string = narrowed): ChangeKind => ({ narrowed, widened });

/** Every kind of change the checker reports; the one place where change codes are spelled. */
export const CHANGE_KINDS = {
  falseSchema: kind('FALSE_SCHEMA_ADDED', 'FALSE_SCHEMA_REMOVED'),
  type: kind('TYPE_NARROWED', 'TYPE_WIDENED'),
  enum: kind('ENUM_ADDED', 'ENUM_REMOVED'),
  enumValue: kind('ENUM_VALUE_REMOVED', 'ENUM_VALUE_ADDED'),
  const: kind('CONST_ADDED', 'CONST_REMOVED'),
  constValue: kind('CONST_CHANGED'),
  value: kind('VALUE_NO_LONGER_ACCEPTED', 'VALUE_NEWLY_ACCEPTED'),
  minLength: kind('MIN_LENGTH_INCREASED', 'MIN_LENGTH_DECREASED'),
  maxLength: kind('MAX_LENGTH_DECREASED', 'MAX_LENGTH_INCREASED'),
  pattern: kind('PATTERN_ADDED', 'PATTERN_REMOVED'),
  patternChanged: kind('PATTERN_CHANGED'),
  format: kind('FORMAT_ADDED', 'FORMAT_REMOVED'),
  formatChanged: kind('FORMAT_CHANGED'),
  minimum: kind('MINIMUM_INCREASED', 'MINIMUM_DECREASED'),
  maximum: kind('MAXIMUM_DECREASED', 'MAXIMUM_INCREASED'),
  multipleOf: kind('MULTIPLE_OF_ADDED', 'MULTIPLE_OF_REMOVED'),
  multipleOfChanged: kind('MULTIPLE_OF_CHANGED'),
  required: kind('REQUIRED_ADDED', 'REQUIRED_REMOVED'),
  additionalProperties: kind('ADDITIONAL_PROPERTIES_CLOSED', 'ADDITIONAL_PROPERTIES_OPENED'),
  additionalPropertiesSchema: kind('ADDITIONAL_PROPERTIES_NARROWED', 'ADDITIONAL_PROPERTIES_WIDENED'),
  minProperties: kind('MIN_PROPERTIES_INCREASED', 'MIN_PROPERTIES_DECREASED'),
  maxProperties: kind('MAX_PROPERTIES_DECREASED', 'MAX_PROPERTIES_INCREASED'),
  dependentRequired: kind('DEPENDENT_REQUIRED_ADDED', 'DEPENDENT_REQUIRED_REMOVED'),
  dependentSchema: kind('DEPENDENT_SCHEMA_ADDED', 'DEPENDENT_SCHEMA_REMOVED'),
  propertyNames: kind('PROPERTY_NAMES_NARROWED', 'PROPERTY_NAMES_WIDENED'),
  items: kind('ITEMS_NARROWED', 'ITEMS_WIDENED'),
  itemsClosed: kind('ITEMS_CLOSED', 'ITEMS_OPENED'),
  minItems: kind('MIN_ITEMS_INCREASED', 'MIN_ITEMS_DECREASED'),
  maxItems: kind('MAX_ITEMS_DECREASED', 'MAX_ITEMS_INCREASED'),
  uniqueItems: kind('UNIQUE_ITEMS_ADDED', 'UNIQUE_ITEMS_REMOVED'),
  contains: kind('CONTAINS_ADDED', 'CONTAINS_REMOVED'),
  conditional: kind('CONDITIONAL_ADDED', 'CONDITIONAL_REMOVED'),
  refUnresolvable: kind('REF_UNRESOLVABLE'),
  undecidableAnyOf: kind('UNDECIDABLE_ANY_OF'),
  undecidableOneOf: kind('UNDECIDABLE_ONE_OF'),
  undecidableNot: kind('UNDECIDABLE_NOT'),
  undecidableConditional: kind('UNDECIDABLE_CONDITIONAL'),
  undecidableContains: kind('UNDECIDABLE_CONTAINS'),
  undecidablePatternProperties: kind('UNDECIDABLE_PATTERN_PROPERTIES'),
  undecidableKeyword: kind('UNDECIDABLE_KEYWORD'),
  undecidableComplexity: kind('UNDECIDABLE_TOO_COMPLEX'),
} as const satisfies Record<string, ChangeKind>;

/** Codes that describe a property by which side declares it rather than by narrowing or widening. */
export const PROPERTY_CODES = {
  added: 'PROPERTY_ADDED',
  removed: 'PROPERTY_REMOVED',
  removedFromClosed: 'PROPERTY_REMOVED_CLOSED',
  patternAdded: 'PATTERN_PROPERTY_ADDED',
  patternRemoved: 'PATTERN_PROPERTY_REMOVED',
} as const;

/** Maps the Ajv keyword that rejected a value to the kind of change it reveals. */
export const KIND_OF_FAILED_KEYWORD: Readonly<Record<string, ChangeKind>> = {
  'false schema': CHANGE_KINDS.falseSchema,
  type: CHANGE_KINDS.type,
  enum: CHANGE_KINDS.enumValue,
  const: CHANGE_KINDS.constValue,
  minLength: CHANGE_KINDS.minLength,
  maxLength: CHANGE_KINDS.maxLength,
  pattern: CHANGE_KINDS.patternChanged,
  format: CHANGE_KINDS.formatChanged,
  minimum: CHANGE_KINDS.minimum,
  exclusiveMinimum: CHANGE_KINDS.minimum,
  maximum: CHANGE_KINDS.maximum,
  exclusiveMaximum: CHANGE_KINDS.maximum,
  multipleOf: CHANGE_KINDS.multipleOfChanged,
  required: CHANGE_KINDS.required,
  additionalProperties: CHANGE_KINDS.additionalProperties,
  minProperties: CHANGE_KINDS.minProperties,
  maxProperties: CHANGE_KINDS.maxProperties,
  dependentRequired: CHANGE_KINDS.dependentRequired,
  propertyNames: CHANGE_KINDS.propertyNames,
  minItems: CHANGE_KINDS.minItems,
  maxItems: CHANGE_KINDS.maxItems,
  uniqueItems: CHANGE_KINDS.uniqueItems,
  contains: CHANGE_KINDS.contains,
};
