/**
 * One property decorator made of several, applied as when they stand one above the other on the property: the
 * last first. A group of rules shared by DTOs (a field's decorators written once) so keeps the order its
 * stacked form registered them in, which is the order a 422 lists a field's messages in and the OpenAPI
 * document its keywords (Nest's applyDecorators applies the first first).
 */
export function stackedDecorators(...decorators: Array<(target: object, propertyKey: string) => void>): PropertyDecorator {
  return (target, key) => {
    for (let i = decorators.length - 1; i >= 0; i--) decorators[i](target, key as string);
  };
}
