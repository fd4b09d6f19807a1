import { type INestApplication } from '@nestjs/common';
import { DocumentBuilder, type SchemaObject, SwaggerModule } from '@nestjs/swagger';
import { z } from 'zod';

/** A zod schema as the OpenAPI (JSON Schema) object Swagger decorators take: one source of truth. */
export function jsonSchema(schema: z.ZodType): SchemaObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest as SchemaObject;
}

/** Serves the OpenAPI document at /api/openapi.json (Swagger UI at /api/docs is DocsController). */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Model gateway console API')
    .setDescription(
      'Session (cookie gw_session + x-csrf-token header on mutating requests) or a named admin token ' +
        '(Authorization: Bearer gwa_...; CONSOLE_ADMIN_TOKEN for bootstrap only). Each operation ' +
        'says who may call it: x-roles (admin, operator, auditor, member; public: no credentials) and ' +
        'x-principals (session, token). Errors: {"error":{"code","message"}}. ' +
        'Credits are decimal numbers (1 credit = 1e9 nanocredits).',
    )
    .setVersion('1')
    .addCookieAuth('gw_session')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'A named admin token (gwa_...), or CONSOLE_ADMIN_TOKEN',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // The description is of the API: /metrics (Prometheus, shared by every app) is not part of it.
  for (const path of Object.keys(document.paths)) if (!path.startsWith('/api/')) delete document.paths[path];
  SwaggerModule.setup('api/docs', app, document, {
    ui: false,
    raw: ['json'],
    jsonDocumentUrl: 'api/openapi.json',
  });
}
