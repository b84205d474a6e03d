import type { INestApplication, Type } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { applyValidationToDocument } from './openapi-constraints';

/**
 * The OpenAPI 3.1 document, generated from the controllers and DTOs, then made exact from the same
 * validation metadata the validation pipe runs on (openapi-constraints.ts).
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig, controllers: Type[]): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Gleaner API')
    .setDescription(
      'Web data extraction: URL + schema in, typed JSON out. Errors are RFC 9457 problem+json with `type` `/problems/<slug>`. ' +
        'Authenticate with `Authorization: Bearer glk_...`.',
    )
    .setVersion(config.version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'glk_...' });
  return applyValidationToDocument(SwaggerModule.createDocument(app, builder.build()), controllers);
}
