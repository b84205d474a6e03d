import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { AppError, Errors, type FieldError } from '@app/core';

const LOCATION: Record<string, string> = { body: 'body', query: 'query', param: 'path', custom: 'body' };

/** Fields whose values are never echoed back in `errors[].value`. */
const SECRET_FIELD = /secret|api_key|apikey|password|token|^key$|authorization/i;

/** Flattens class-validator's tree into `errors[]` with `location` paths like `body.scopes[0]`. */
export function flattenValidationErrors(errors: ValidationError[], prefix: string): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = /^\d+$/.test(error.property) ? `${prefix}[${error.property}]` : `${prefix}.${error.property}`;
    for (const message of Object.values(error.constraints ?? {})) {
      const cleaned = message.replace(new RegExp(`^(each value in )?${error.property} `), '$1');
      const value = error.constraints?.whitelistValidation || SECRET_FIELD.test(error.property) ? undefined : error.value;
      out.push({
        location: path,
        message: error.constraints?.whitelistValidation ? 'unknown field' : cleaned,
        ...(value === undefined ? {} : { value }),
      });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, path));
  }
  return out;
}

/** Strict DTO validation: unknown fields are rejected, types are not silently coerced in bodies. */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype;
    if (!metatype || [String, Number, Boolean, Array, Object].includes(metatype as never)) return value;
    const location = LOCATION[metadata.type] ?? 'body';
    if (metadata.type === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw Errors.validation([{ location: 'body', message: 'must be a JSON object' }]);
    }
    const instance = plainToInstance(metatype as new () => object, value ?? {});
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: true },
    });
    if (errors.length > 0) throw Errors.validation(flattenValidationErrors(errors, location));
    return instance;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
