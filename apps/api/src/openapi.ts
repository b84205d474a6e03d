import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';

/** The OpenAPI 3.1 document, generated from the controllers and DTOs. */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Gleaner API')
    .setDescription(
      'Web data extraction: URL + schema in, typed JSON out. Errors are RFC 9457 problem+json with `type` `/problems/<slug>`. ' +
        'Authenticate with `Authorization: Bearer glk_...`.',
    )
    .setVersion(config.version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'glk_...' });
  return SwaggerModule.createDocument(app, builder.build());
}
