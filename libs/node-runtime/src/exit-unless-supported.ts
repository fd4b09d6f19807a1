import { unsupportedNodeMessage } from './required-node.js';

/**
 * First statement of every entry point, before anything heavy is imported: an older Node stops here
 * with one line and exit code 1, instead of a stack trace from deep inside a dependency that uses an
 * API it lacks. Entry points import their app dynamically after this call, because static imports
 * are linked and evaluated before the module's own code runs.
 */
export function exitUnlessSupportedNode(app: string): void {
  const message = unsupportedNodeMessage(app, process.version, process.execPath);
  if (message === null) return;
  console.error(message);
  process.exit(1);
}
