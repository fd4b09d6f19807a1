/**
 * The Gemini API's checks of function declarations: the name's pattern, `parameters` (the OpenAPI
 * subset, whose unknown keywords the parser already refused) exclusive with `parametersJsonSchema`
 * (full JSON Schema, not checked), and `required` naming only declared properties.
 * "property is not defined" and the name message are Google's (public reports); the exclusivity
 * message is approximated (no public report of it was found).
 */
import type { GeminiTool } from '../../../providers/gemini/wire.js';
import { geminiFieldError } from './gemini-errors.js';
import type { Check } from './params.js';

/** Google's reference: a-z, A-Z, 0-9, underscores, colons, dots and dashes; 64 at most. */
const NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

interface SchemaNode {
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly anyOf?: readonly SchemaNode[];
}

export function validateTools(tools: readonly GeminiTool[] | undefined, at: string): Check {
  for (let i = 0; i < (tools?.length ?? 0); i++) {
    const declarations = tools?.[i]?.functionDeclarations ?? [];
    for (let j = 0; j < declarations.length; j++) {
      const path = `${at}.tools[${i}].function_declarations[${j}]`;
      const declaration = declarations[j];
      if (!NAME.test(declaration?.name ?? '')) {
        return geminiFieldError(
          `${path}.name`,
          'Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.',
        );
      }
      if (declaration?.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
        return geminiFieldError(
          `${path}.parameters_json_schema`,
          'parameters_json_schema must not be set when parameters is set.',
        );
      }
      const invalid = declaration?.parameters ? schema(declaration.parameters, `${path}.parameters`) : null;
      if (invalid) return invalid;
    }
  }
  return null;
}

/** Paths as Google prints them: a property is `properties[i].value`, i its position in the map. */
function schema(node: SchemaNode, path: string): Check {
  const names = Object.keys(node.properties ?? {});
  const undeclared = (node.required ?? []).findIndex((name) => !names.includes(name));
  if (undeclared >= 0) return geminiFieldError(`${path}.required[${undeclared}]`, 'property is not defined');
  for (let i = 0; i < names.length; i++) {
    const invalid = schema(
      node.properties?.[names[i] as string] as SchemaNode,
      `${path}.properties[${i}].value`,
    );
    if (invalid) return invalid;
  }
  if (node.items) {
    const invalid = schema(node.items, `${path}.items`);
    if (invalid) return invalid;
  }
  for (let i = 0; i < (node.anyOf?.length ?? 0); i++) {
    const invalid = schema(node.anyOf?.[i] as SchemaNode, `${path}.any_of[${i}]`);
    if (invalid) return invalid;
  }
  return null;
}
