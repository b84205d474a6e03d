export { SCHEMA_MISMATCH_DETAIL, StrictValidationPipe } from './validation.pipe';
export { problemPage, toProblem } from './problem';
export {
  checkHttpUrl,
  EMPTY_OR_HTTP_URL_NO_FRAGMENT_PATTERN,
  HTTP_URL_NO_FRAGMENT_PATTERN,
  HTTP_URL_PATTERN,
  IsDateOrDateTime,
  IsHttpUrl,
  IsPrintable,
  IsRfc3339,
  PRINTABLE_PATTERN,
  QueryInteger,
} from './dto-rules';
export { JSON_BODY_LIMITS, parseJsonBody } from './json-body';
export { describeDto, isDto, type DtoClass, type PropertyDescription, type PropertyRule } from './dto-metadata';
export { dtoJsonSchema, dtoObjectSchema, ExactlyOneOf, propertyJsonSchema, type JsonSchema } from './dto-json-schema';
export {
  readUrlListBody,
  URL_LIST_MAX_LINE_BYTES,
  URL_LIST_MEDIA_TYPES,
  UrlListBody,
  type ListedUrl,
  type UrlListMediaType,
} from './url-list-body';
export { HasUsableKeys, IsStringMap, STRING_MAP_RULE, type StringMapRule } from './map-rules';
export { stackedDecorators } from './stacked-decorators';
export { OptionalHttpUrlProperty } from './http-url.property';
