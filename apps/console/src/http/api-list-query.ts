import { ApiQuery } from '@nestjs/swagger';
import { type z } from 'zod';
import { jsonSchema } from '../openapi.js';

/**
 * Documents a list's query parameters (search, filters, cursor, limit) in the OpenAPI document
 * from the same zod schema the controller validates with: one source, so the document cannot
 * offer a filter the route refuses.
 */
export function ApiListQuery(schema: z.ZodObject): MethodDecorator {
  const properties = (jsonSchema(schema).properties ?? {}) as Record<string, object>;
  const decorators = Object.entries(properties).map(([name, property]) =>
    ApiQuery({ name, required: false, schema: property }),
  );
  return (target, key, descriptor) => {
    for (const d of decorators) d(target, key, descriptor);
  };
}
