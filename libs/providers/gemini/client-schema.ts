import { camelCase, isObject, type Json } from './client-fields.js';

/**
 * Google's `Schema` (the OpenAPI 3.0 subset of `parameters` and `responseSchema`) -> JSON Schema,
 * which the hub's tools and response formats carry. What differs: type names in upper case
 * (`OBJECT`), `nullable: true` instead of a type union with null, int64 counts sent as strings
 * (`"maxItems": "3"`), `format: "enum"` on enum strings, and two keywords of Google's own:
 * `propertyOrdering` (the order the model writes properties in) and `example`. The ordering is a
 * hint JSON Schema has no keyword for: it is left out and named in `dropped`.
 */
export function jsonSchemaOf(schema: Json, dropped: Set<string>): Json {
  const out: Json = {};
  for (const [raw, value] of Object.entries(schema)) {
    const key = camelCase(raw);
    switch (key) {
      case 'type':
        if (typeof value === 'string' && value.toUpperCase() !== 'TYPE_UNSPECIFIED')
          out.type = value.toLowerCase();
        break;
      case 'nullable':
        break;
      case 'properties':
        out.properties = isObject(value) ? mapValues(value, (s) => jsonSchemaOf(s, dropped)) : value;
        break;
      case 'items':
        out.items = isObject(value) ? jsonSchemaOf(value, dropped) : value;
        break;
      case 'anyOf':
        out.anyOf = Array.isArray(value)
          ? value.map((s) => (isObject(s) ? jsonSchemaOf(s, dropped) : s))
          : value;
        break;
      case 'minItems':
      case 'maxItems':
      case 'minLength':
      case 'maxLength':
      case 'minProperties':
      case 'maxProperties':
        out[key] = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
        break;
      case 'propertyOrdering':
        dropped.add(key);
        break;
      case 'example':
        out.examples = [value];
        break;
      case 'format':
        // Google marks enum strings with format "enum"; `enum` says it already.
        if (value !== 'enum') out.format = value;
        break;
      default:
        out[key] = value;
    }
  }
  return schema.nullable === true ? nullable(out) : out;
}

/** `nullable: true`: null joins the type, the enum, or the alternatives. */
function nullable(schema: Json): Json {
  const out: Json = { ...schema };
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

function mapValues(obj: Json, f: (value: Json) => Json): Json {
  const out: Json = {};
  for (const [name, value] of Object.entries(obj)) out[name] = isObject(value) ? f(value) : value;
  return out;
}

const OPENAPI_TYPES: ReadonlySet<string> = new Set([
  'STRING',
  'NUMBER',
  'INTEGER',
  'BOOLEAN',
  'ARRAY',
  'OBJECT',
  'NULL',
]);

/** Keywords whose value is a schema, a list of schemas, or a map of name -> schema. */
const ONE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const MANY = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const NAMED = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * A JSON Schema as Google reads it: Google takes its OpenAPI type names (`"OBJECT"`) in a JSON
 * Schema too, and Gemini CLI sends them so (its classifier's `responseJsonSchema`). Those names
 * are lower-cased, wherever a subschema may sit; nothing else changes.
 */
export function withJsonSchemaTypes(schema: Json): Json {
  const out: Json = { ...schema };
  if (typeof out.type === 'string' && OPENAPI_TYPES.has(out.type)) out.type = out.type.toLowerCase();
  else if (Array.isArray(out.type))
    out.type = out.type.map((t: unknown) =>
      typeof t === 'string' && OPENAPI_TYPES.has(t) ? t.toLowerCase() : t,
    );
  const sub = (v: unknown): unknown => (isObject(v) ? withJsonSchemaTypes(v) : v);
  for (const key of ONE)
    if (key in out) out[key] = Array.isArray(out[key]) ? (out[key] as unknown[]).map(sub) : sub(out[key]);
  for (const key of MANY) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(sub);
  for (const key of NAMED) if (isObject(out[key])) out[key] = mapValues(out[key], withJsonSchemaTypes);
  return out;
}
